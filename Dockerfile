FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY hmem ./hmem
RUN pip install --no-cache-dir '.[local]'
USER nobody
CMD ["hmem", "--help"]
