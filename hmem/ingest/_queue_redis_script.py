"""The shared queue's one server-side script (``hmem/ingest/queue_redis.py``): every
state change of a job is one call of it, so it is atomic across processes and hosts and
timed by the server's clock. Its keys are described in ``queue_redis.py``."""

from __future__ import annotations

__all__ = ["SCRIPT"]

SCRIPT = """
local op, P = ARGV[1], ARGV[2]
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local function jk(id) return P .. 'job:' .. id end

local function setstatus(id, new)
  local old = redis.call('HGET', jk(id), 'status')
  if old then redis.call('HINCRBY', P .. 'counts', old, -1) end
  if new then
    redis.call('HINCRBY', P .. 'counts', new, 1)
    redis.call('HSET', jk(id), 'status', new)
  end
end

local function refresh(user)
  local head = redis.call('ZRANGE', P .. 'open:' .. user, 0, 0)[1]
  if not head then
    redis.call('ZREM', P .. 'ready', user)
    return
  end
  local h = redis.call('HMGET', jk(head), 'status', 'not_before', 'lease_until')
  local score = tonumber(h[3]) or 0
  if h[1] == 'queued' then score = tonumber(h[2]) or 0 end
  local running = redis.call('GET', P .. 'run:' .. user)
  if running and running ~= head then
    local lease = tonumber(redis.call('HGET', jk(running), 'lease_until') or '0') or 0
    if lease > score then score = lease end
  end
  redis.call('ZADD', P .. 'ready', score, user)
end

local function settle(id, user)
  redis.call('ZREM', P .. 'open:' .. user, id)
  if redis.call('GET', P .. 'run:' .. user) == id then redis.call('DEL', P .. 'run:' .. user) end
  refresh(user)
end

local function remove(id)
  local h = redis.call('HMGET', jk(id), 'user_id', 'idempotency_key')
  if not h[1] then return 0 end
  setstatus(id, nil)
  redis.call('DEL', jk(id))
  local idem = P .. 'idem:' .. h[1] .. ':' .. h[2]
  if redis.call('GET', idem) == id then redis.call('DEL', idem) end
  redis.call('SREM', P .. 'jobs:' .. h[1], id)
  settle(id, h[1])
  return 1
end

if op == 'submit' then
  local user, id = ARGV[3], ARGV[5]
  local idem = P .. 'idem:' .. user .. ':' .. ARGV[4]
  local existing = redis.call('GET', idem)
  if existing and redis.call('EXISTS', jk(existing)) == 1 then return {existing, 0} end
  redis.call('HSET', jk(id), unpack(ARGV, 7))
  setstatus(id, 'queued')
  redis.call('SET', idem, id)
  redis.call('SADD', P .. 'jobs:' .. user, id)
  redis.call('ZADD', P .. 'open:' .. user, tonumber(ARGV[6]), id)
  refresh(user)
  return {id, 1}
elseif op == 'claim' then
  for _ = 1, 50 do
    local user = redis.call('ZRANGEBYSCORE', P .. 'ready', '-inf', now, 'LIMIT', 0, 1)[1]
    if not user then return false end
    local head = redis.call('ZRANGE', P .. 'open:' .. user, 0, 0)[1]
    if head and redis.call('EXISTS', jk(head)) == 1 then
      redis.call('HSET', jk(head), 'lease_until', now + tonumber(ARGV[3]), 'updated_at', ARGV[4])
      redis.call('HINCRBY', jk(head), 'attempts', 1)
      setstatus(head, 'running')
      redis.call('SET', P .. 'run:' .. user, head)
      refresh(user)
      return head
    end
    if head then redis.call('ZREM', P .. 'open:' .. user, head) end
    refresh(user)
  end
  return false
elseif op == 'update' then
  -- id, status ('' keeps it), backoff ('' none), drop text ('1'), n, n pairs, names to delete
  local id, status, backoff, drop, n = ARGV[3], ARGV[4], ARGV[5], ARGV[6], tonumber(ARGV[7])
  local key = jk(id)
  if redis.call('EXISTS', key) == 0 then return 0 end
  if n > 0 then redis.call('HSET', key, unpack(ARGV, 8, 7 + 2 * n)) end
  if #ARGV > 7 + 2 * n then redis.call('HDEL', key, unpack(ARGV, 8 + 2 * n)) end
  if backoff ~= '' then redis.call('HSET', key, 'not_before', now + tonumber(backoff)) end
  if drop == '1' then
    redis.call('HSET', key, 'source_text', '', 'episode_text', '')
    redis.call('HDEL', key, 'extraction', 'raw_output', 'session_id')
  end
  if status ~= '' then
    local user = redis.call('HGET', key, 'user_id')
    setstatus(id, status)
    if status == 'queued' then
      redis.call('HSET', key, 'lease_until', 0)
      redis.call('ZADD', P .. 'open:' .. user, tonumber(redis.call('HGET', key, 'score')), id)
      if redis.call('GET', P .. 'run:' .. user) == id then
        redis.call('DEL', P .. 'run:' .. user)
      end
      refresh(user)
    else
      redis.call('HSET', key, 'lease_until', 0)
      settle(id, user)
    end
  else
    refresh(redis.call('HGET', key, 'user_id'))
  end
  return 1
elseif op == 'renew' then
  -- id, attempt, lease: only while this run (its attempt) still holds the job
  local key = jk(ARGV[3])
  local h = redis.call('HMGET', key, 'status', 'attempts', 'user_id')
  if h[1] ~= 'running' or h[2] ~= ARGV[4] then return 0 end
  redis.call('HSET', key, 'lease_until', now + tonumber(ARGV[5]))
  refresh(h[3])
  return 1
elseif op == 'remove' then
  local n = 0
  for i = 3, #ARGV do n = n + remove(ARGV[i]) end
  return n
end
return redis.error_reply('unknown op ' .. op)
"""
