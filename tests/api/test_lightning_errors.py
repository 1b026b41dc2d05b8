"""A Lightning node that is down or misbehaves: 503 or 502 in the standard error shape, never a 500, and
nothing charged. The real LND client runs against a port where nothing listens."""
import falcon.testing
import pytest

from marketintel.redis_server import free_port
from tests.api.agent_helpers import auth, register


@pytest.fixture
def lnd_down_client(settings, monkeypatch, tmp_path):
    from api.app import create_app
    from marketintel.settings import get_settings

    macaroon = tmp_path / "invoice.macaroon"
    macaroon.write_bytes(b"\x02\x01secret-macaroon")
    monkeypatch.setenv("MI_LIGHTNING_BACKEND", "lnd")
    monkeypatch.setenv("MI_LND_URL", f"https://127.0.0.1:{free_port()}")
    monkeypatch.setenv("MI_LND_MACAROON_PATH", str(macaroon))
    get_settings.cache_clear()
    return falcon.testing.TestClient(create_app(get_settings()))


def test_node_down_is_503_with_retry_after(lnd_down_client):
    key, _ = register(lnd_down_client)
    resp = lnd_down_client.simulate_post("/api/v1/payments/create-invoice", json={"amount_sats": 100},
                                         headers=auth(key))
    assert resp.status_code == 503 and resp.headers["Retry-After"] == "30"
    assert resp.json["error"]["code"] == "lightning_unavailable" and "secret" not in resp.text
    assert lnd_down_client.simulate_get("/api/v1/agents/balance", headers=auth(key)).json["balance_sats"] == 0
