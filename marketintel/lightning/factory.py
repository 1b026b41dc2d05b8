"""Choose the Lightning backend named in the settings (MI_LIGHTNING_BACKEND)."""
from __future__ import annotations

from marketintel.settings import Settings

from .base import LightningBackend


def make_backend(settings: Settings) -> LightningBackend:
    kind = settings.lightning_backend
    if kind == "dev":
        from .dev import DevLightning

        return DevLightning(settings.home, settings.lightning_network)
    timeout = settings.lightning_timeout_s
    if kind == "lnd":
        from .lnd import LndLightning

        if settings.lnd_macaroon is not None:
            return LndLightning(settings.lnd_url, settings.lnd_macaroon, settings.lnd_tls_cert_path, timeout_s=timeout)
        if settings.lnd_macaroon_path is None:
            raise ValueError("MI_LIGHTNING_BACKEND=lnd needs MI_LND_MACAROON_PATH (or MI_LND_MACAROON, hex)")
        return LndLightning.from_files(settings.lnd_url, settings.lnd_macaroon_path, settings.lnd_tls_cert_path,
                                       timeout_s=timeout)
    if kind == "phoenixd":
        from .phoenixd import PhoenixdLightning

        if settings.phoenixd_password is None:
            raise ValueError("MI_LIGHTNING_BACKEND=phoenixd needs MI_PHOENIXD_PASSWORD")
        return PhoenixdLightning(settings.phoenixd_url, settings.phoenixd_password, timeout_s=timeout)
    if kind == "lnbits":
        from .lnbits import LnbitsLightning

        if settings.lnbits_api_key is None:
            raise ValueError("MI_LIGHTNING_BACKEND=lnbits needs MI_LNBITS_API_KEY")
        return LnbitsLightning(settings.lnbits_url, settings.lnbits_api_key, timeout_s=timeout)
    raise ValueError(f"unknown Lightning backend {kind!r}")
