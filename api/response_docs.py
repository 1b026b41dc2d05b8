"""Response bodies in /openapi.json, so a client (and the schemathesis fuzz) knows what each status answers.

The models (api/response_docs_shapes.py, api/response_docs_routes.py) are attached to the generated document
only, never given to spectree's `resp=`: spectree would then validate each response at run time and turn a
payload that grew into a 500. `attach(spec)` fills every status of every operation: the 200 (and 202) bodies
from BODIES, 402 the payment error, /health's 503 its report, every other error but 422 the error shape. The
bodies POST /mcp documents with its own models (the JSON-RPC exchange) are kept."""
from __future__ import annotations

from pydantic.json_schema import models_json_schema

from api import module_schemas
from api import response_docs_agents as a
from api import response_docs_routes as r
from api.response_docs_shapes import (
    ErrorResponse,
    HealthReport,
    ModuleResult,
    PaymentRequiredResponse,
    SynthesisQueued,
    SynthesisResult,
)

V1 = "/api/v1"
MODULE_ROUTE = f"{V1}/intelligence/{{module_name}}"
REF = "#/components/schemas/{model}"

# queued work: 200 the result, 202 where to poll (api/synthesis_queries.py `answer`)
_QUEUED = {"200": SynthesisResult, "202": SynthesisQueued}

BODIES: dict[tuple[str, str], dict[str, type]] = {
    ("/", "get"): {"200": r.ServiceIndex},
    ("/health", "get"): {"200": HealthReport, "503": HealthReport},
    ("/health/dashboard", "get"): {"200": r.HealthDashboard},
    (f"{V1}/sla", "get"): {"200": r.ServiceLevels},
    (f"{V1}/pulse", "get"): {"200": r.Pulse},
    (f"{V1}/modules", "get"): {"200": r.ModuleList},
    (f"{V1}/pricing", "get"): {"200": r.Pricing},
    (f"{V1}/catalog", "get"): {"200": r.Catalog},
    (f"{V1}/catalog/preview", "get"): {"200": r.CatalogPreview},
    (f"{V1}/sampling/status", "get"): {"200": r.SamplingStatus},
    (f"{V1}/intelligence/ask", "post"): _QUEUED,
    (f"{V1}/intelligence/ask/async", "post"): _QUEUED,
    (f"{V1}/intelligence/unified", "get"): {"200": r.UnifiedContext},
    (f"{V1}/intelligence/batch", "post"): {"200": r.BatchResults},
    (MODULE_ROUTE, "get"): {"200": ModuleResult},  # then one per module (api/module_schemas.py)
    (f"{V1}/intelligence/parallels", "get"): {"200": r.Parallels},
    (f"{V1}/intelligence/track_record", "get"): {"200": r.TrackRecord},
    (f"{V1}/intelligence/consensus", "get"): {"200": r.Consensus},
    (f"{V1}/synthesis/result/{{request_id}}", "get"): _QUEUED,
    (f"{V1}/content/types", "get"): {"200": r.ContentTypes},
    (f"{V1}/content/generate", "post"): _QUEUED,
    (f"{V1}/content/generate/async", "post"): _QUEUED,
    (f"{V1}/trading/regime", "get"): {"200": r.TradingRegime},
    (f"{V1}/trading/signals", "get"): {"200": r.TradingSignals},
    (f"{V1}/trading/day-trade-ideas", "get"): {"200": r.DayTradeIdeas},
    (f"{V1}/trading/day-trade-ideas/accept-terms", "post"): {"200": r.TermsAccepted},
    (f"{V1}/trading/day-trade-ideas/track-record", "get"): {"200": r.DayTradeTrackRecord},
    (f"{V1}/predictions", "get"): {"200": r.Predictions},
    (f"{V1}/predictions/accuracy", "get"): {"200": r.PredictionAccuracy},
    (f"{V1}/predictions/chain", "get"): {"200": r.ChainExport},
    ("/.well-known/marketintel-signing-key.json", "get"): {"200": r.SigningKey},
    (f"{V1}/agents/register", "post"): {"200": r.Registered},
    (f"{V1}/agents/me", "get"): {"200": r.AgentProfile},
    (f"{V1}/agents/balance", "get"): {"200": r.Balance},
    (f"{V1}/agents/topup", "post"): {"200": r.ToppedUp},
    (f"{V1}/agents/rotate-key", "post"): {"200": r.KeyRotated},
    (f"{V1}/agents/upgrade", "post"): {"200": r.Upgraded},
    (f"{V1}/payments/create-invoice", "post"): {"200": r.InvoiceCreated},
    (f"{V1}/payments/verify/{{payment_hash}}", "get"): {"200": r.PaymentStatus},
    (f"{V1}/commitments/plans", "get"): {"200": r.CommitmentPlans},
    (f"{V1}/commitments/activate", "post"): {"200": r.CommitmentActivated},
    (f"{V1}/commitments/status", "get"): {"200": r.CommitmentStatus},
    (f"{V1}/subscriptions/plans", "get"): {"200": r.SubscriptionPlans},
    (f"{V1}/subscriptions/subscribe", "post"): {"200": r.Subscribed},
    (f"{V1}/subscriptions/status", "get"): {"200": r.SubscriptionStatus},
    (f"{V1}/referrals/code", "get"): {"200": r.ReferralCode},
    (f"{V1}/referrals/stats", "get"): {"200": r.ReferralStats},
    (f"{V1}/referrals/credits", "get"): {"200": r.ReferralCredits},
    (f"{V1}/webhooks/subscribe", "post"): {"200": r.WebhookSubscribed},
    (f"{V1}/webhooks/unsubscribe", "delete"): {"200": r.WebhookUnsubscribed},
    (f"{V1}/webhooks/deliveries", "get"): {"200": r.WebhookDeliveries},
    (f"{V1}/webhooks/events", "get"): {"200": r.EventTypes},
    (f"{V1}/alerts", "get"): {"200": r.Alerts},
    (f"{V1}/alerts/subscribe", "post"): {"200": r.AlertCreated},
    (f"{V1}/alerts/fields", "get"): {"200": r.AlertFields},
    (f"{V1}/alerts/{{alert_id}}", "delete"): {"200": r.AlertDeleted},
    (f"{V1}/alert-packages", "get"): {"200": r.AlertPackages},
    (f"{V1}/alert-packages/my", "get"): {"200": r.MyPackages},
    (f"{V1}/alert-packages/{{package_id}}/subscribe", "post"): {"200": r.PackageSubscribed},
    (f"{V1}/alert-packages/{{package_id}}/unsubscribe", "delete"): {"200": r.PackageUnsubscribed},
    (f"{V1}/alert-packages/{{package_id}}/history", "get"): {"200": r.PackageHistory},
    (f"{V1}/events/scanner", "get"): {"200": r.ScannerStatus},
    (f"{V1}/events/status", "get"): {"200": r.EventStatus},
    (f"{V1}/templates", "get"): {"200": r.Templates},
    ("/mcp", "get"): {"200": a.MCPManifest},
    **{(path, "get"): {"200": a.MCPHealth} for path in ("/mcp/health", "/health/mcp")},
    **{(path, "get"): {"200": a.MCPServerCard}
       for path in ("/mcp/server-card.json", "/.well-known/mcp/server-card.json", "/.well-known/mcp.json")},
    ("/.well-known/agent.json", "get"): {"200": a.LegacyAgentCard},
    ("/.well-known/agent-card.json", "get"): {"200": a.CurrentAgentCard},
    (f"{V1}/integrations/functioncalling/tools", "get"): {"200": a.FunctionCallingTools},
    (f"{V1}/integrations/functioncalling/config", "get"): {"200": a.FunctionCallingConfig},
    (f"{V1}/integrations/chain/config", "get"): {"200": a.ChainConfig},
    (f"{V1}/integrations/crew/config", "get"): {"200": a.CrewConfig},
}
# bodies that are not JSON: the media type and its schema
RAW_BODIES = {
    (f"{V1}/events/stream", "get", "200"): ("text/event-stream", {"type": "string"}),
    ("/charts/newsletter/{filename}", "get", "200"): ("image/png", {"type": "string", "format": "binary"}),
}
ERROR_MODELS = (ErrorResponse, PaymentRequiredResponse)


def model_for(path: str, method: str, status: str) -> type | None:
    """The documentation model of one status of one operation, or None (422, and statuses without a body)."""
    if status == "422":
        return None
    model = BODIES.get((path, method), {}).get(status)
    if model is None and status[0] in "45":
        model = PaymentRequiredResponse if status == "402" else ErrorResponse
    return model


def attach(spec: dict, module_names: list[str]) -> None:
    """Give every status of every operation its body schema, and the models to components/schemas."""
    models = {*ERROR_MODELS, *(m for statuses in BODIES.values() for m in statuses.values())}
    _, top = models_json_schema([(m, "serialization") for m in models], ref_template=REF)
    spec.setdefault("components", {}).setdefault("schemas", {}).update(top.get("$defs", {}))
    for path, item in spec.get("paths", {}).items():
        for method, operation in item.items():
            for status, response in operation.get("responses", {}).items():
                raw = RAW_BODIES.get((path, method, status))
                model = model_for(path, method, status)
                if raw is not None:
                    response["content"] = {raw[0]: {"schema": raw[1]}}
                elif model is not None and "content" not in response:  # POST /mcp's JSON-RPC models stay
                    response["content"] = {"application/json": {"schema": {"$ref": REF.format(model=model.__name__)}}}
    if module_names and MODULE_ROUTE in spec.get("paths", {}):
        module_schemas.attach(spec, module_names, MODULE_ROUTE)
