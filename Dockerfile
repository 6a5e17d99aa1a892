FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY hmem ./hmem
RUN pip install --no-cache-dir '.[mcp,queue]' && mkdir -p /var/lib/hmem && chown nobody /var/lib/hmem
USER nobody
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=5s --retries=6 \
  CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=4)"
CMD ["hmem", "serve", "--host", "0.0.0.0", "--port", "8000"]
