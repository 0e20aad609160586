# syntax=docker/dockerfile:1
# The casino service. `docker run -p 8000:8000 casino` runs the whole stack on the
# embedded defaults (Postgres and Redis started from Python packages, data in
# /app/var: mount a volume there to keep it), exactly as `scripts/run` does; set
# DATABASE_URL and REDIS_URL to use external ones (see docker-compose.yml).

FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md ./
COPY casino ./casino
COPY workers ./workers
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 casino
WORKDIR /app
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
COPY sql ./sql
RUN mkdir -p /app/var && chown casino:casino /app/var
ENV CASINO_SQL_DIR=/app/sql \
    CASINO_DATA_DIR=/app/var \
    PYTHONUNBUFFERED=1
# Postgres refuses to run as root: the embedded one needs this non-root user anyway.
USER casino
EXPOSE 8000
VOLUME ["/app/var"]
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD python -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=4).status != 200)"
CMD ["casino", "up", "--host", "0.0.0.0", "--port", "8000"]
