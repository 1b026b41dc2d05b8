# syntax=docker/dockerfile:1
# The service's image: one image for every role (`marketintel api | worker | pipelines | migrate`), the role given as
# the command. It runs as a non-root user against the deployment's PostgreSQL and Redis (compose.yaml): the embedded
# Redis that `marketintel up` starts on one machine is never used here.

FROM python:3.11-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 UV_COMPILE_BYTECODE=1 UV_LINK_MODE=copy
RUN pip install --no-cache-dir "uv==0.9.*"
WORKDIR /app
COPY pyproject.toml README.md workspace.yaml ./
COPY api ./api
COPY assets ./assets
COPY charging ./charging
COPY intel ./intel
COPY jobs ./jobs
COPY marketintel ./marketintel
COPY pipelines ./pipelines
COPY warehouse ./warehouse
RUN uv venv /opt/venv && uv pip install --python /opt/venv/bin/python --no-cache -e .

FROM python:3.11-slim-bookworm
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    MI_HOME=/var/lib/marketintel \
    MI_API_HOST=0.0.0.0 \
    MI_LOG_FORMAT=json \
    DAGSTER_HOME=/var/lib/marketintel/dagster
RUN useradd --create-home --uid 10001 --shell /usr/sbin/nologin marketintel \
    && mkdir -p /var/lib/marketintel \
    && chown marketintel:marketintel /var/lib/marketintel
COPY --from=build /opt/venv /opt/venv
COPY --from=build /app /app
WORKDIR /app
USER 10001
EXPOSE 8000 3000
# The API's own liveness: /health answers 200 once the ledger, Redis and a published copy are there.
HEALTHCHECK --interval=30s --timeout=5s --start-period=120s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/health', timeout=4).status != 200)"]
ENTRYPOINT ["marketintel"]
CMD ["api"]
