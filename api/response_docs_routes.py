"""The 200 bodies of the routes, one documentation model each, read from the routes' responders and the payload
builders they call (api/resources/*.py, warehouse/ledger/*.py, api/*_queries.py). Fields are the keys a route
always answers; nested objects are left open (`object`) where their keys depend on the data.

`body(model_name, doc, **fields)` builds a model from `name=type` pairs, each required; `meta=` a `_meta` model."""
from __future__ import annotations

from typing import Any

from pydantic import Field, create_model

from api.response_docs_shapes import ChargeMeta, Documented, ModuleMeta, PulseMeta

Obj = dict[str, Any]
Objs = list[dict[str, Any]]


def body(model_name: str, doc: str, meta: type | None = None, /, **fields) -> type[Documented]:
    # a field given as (type, default) is optional; any other is required
    spec = {key: kind if isinstance(kind, tuple) else (kind, ...) for key, kind in fields.items()}
    if meta is not None:
        spec["meta"] = (meta, Field(alias="_meta"))
    return create_model(model_name, __base__=Documented, __doc__=doc, **spec)


ServiceIndex = body("ServiceIndex", "GET /: what the service is and where to start.", service=str, version=str,
                    description=str, data_source=str, simulated=bool, quick_start=list[str], links=dict[str, str],
                    disclaimer=str)
HealthDashboard = body("HealthDashboard", "GET /health/dashboard", checked_at=float, data_source=str,
                       simulated=bool, modules=Objs, circuit_breakers=list, data_freshness=Obj, ingest=Obj | None,
                       services=Objs, system=Obj)
ServiceLevels = body("ServiceLevels", "GET /api/v1/sla: measured uptime, latency, error rates, data freshness.",
                     measured_at=float, uptime=Obj, latency_ms=Obj, error_rates=Obj, data_freshness=Obj,
                     data_source=str, simulated=bool)
Pulse = body("Pulse", "GET /api/v1/pulse", PulseMeta, as_of=str, data_as_of=str | None, generated_at=str,
             regime=Obj, signals=Obj, correlation_alerts=list, composite_score=float, premium_teasers=Objs,
             data_sources=Obj, provenance=Obj)
ModuleListing = body("ModuleListing", "One module of GET /api/v1/modules.", name=str, category=str, price_sats=int,
                     tier=str, description=str, inputs=list[str], path=str, takes_ticker=bool,
                     free_queries_left_today=int, available=bool)
ModuleList = body("ModuleList", "GET /api/v1/modules", count=int, free_queries_per_module_per_day=int,
                  modules=list[ModuleListing])
Pricing = body("Pricing", "GET /api/v1/pricing: every price and why.", currency=str, free_allowance=Obj,
               per_query=dict[str, int], modules=Obj, items=Objs, passes=Objs, pulse=Obj, payment=Obj,
               subscription_required=bool, tiers=Obj, commitment_plans=Objs, subscription_plans=Objs,
               referral_reward_percent=int, pool_order=str, rate_limits_per_key=Obj)
Catalog = body("Catalog", "GET /api/v1/catalog", ChargeMeta, service=str, version=str, agent_tier=str,
               module_count=int, categories=Objs, pricing=Obj, routes=dict[str, str])
CatalogPreview = body("CatalogPreview", "GET /api/v1/catalog/preview", module_count=int, categories=list[str],
                      tiers=Obj, pricing=Obj, how_to_register=list[str], full_catalog=str)
SamplingStatus = body("SamplingStatus", "GET /api/v1/sampling/status", date=str, caller=str,
                      free_queries_per_module_per_day=int, modules_total=int, tried_count=int, untried_count=int,
                      free_queries_left_total=int, tried=list, untried=list[str])
UnifiedContext = body("UnifiedContext", "GET /api/v1/intelligence/unified", ChargeMeta, topic=str | None, depth=str,
                      as_of=str, market_clock=str, regime=Obj, categories=Obj, disagreements=Objs, calendar=Obj,
                      sources_missing=list, caveats=list[str], simulated=bool, data_source=str, figures_count=int)
BatchMeta = body("BatchMeta", "`_meta` of a batch: the one request id and the sum charged (`paid_with` when the "
                 "batch was paid whole per request: `l402` or `mpp`).", request_id=str, modules=int, succeeded=int,
                 failed=int, charged_sats=int, paid_with=(str | None, None))


class BatchItemResult(Documented):
    """One batch result: with status 200 its `result` (the module in its format), else its `error`."""

    index: int
    module: str
    status: int
    result: Obj | None = None
    error: Obj | None = None


BatchResults = body("BatchResults", "POST /api/v1/intelligence/batch", BatchMeta, results=list[BatchItemResult])
Parallels = body("Parallels", "GET /api/v1/intelligence/parallels", ModuleMeta, as_of=str, generated_at=str,
                 methodology=Obj, data_sources=Obj, results=Objs)
TrackRecord = body("TrackRecord", "GET /api/v1/intelligence/track_record", ModuleMeta, as_of=str, generated_at=str,
                   filters=Obj, counts=dict[str, int], accuracy=Any, by_category=Obj, methodology=str,
                   predictions=Objs, regime_classifier=Obj | None)
Consensus = body("Consensus", "GET /api/v1/intelligence/consensus", ModuleMeta, window=Obj, min_agents=int,
                 privacy=str, totals=Obj, consensus=Obj, summary=str, data_sources=Obj)
ContentTypes = body("ContentTypes", "GET /api/v1/content/types", types=Objs, prices_by_tier=dict[str, int],
                    pricing=str)
ModuleHistory = body("ModuleHistory", "GET /api/v1/intelligence/{module_name}/history: one point per step, each "
                     "`{as_of, data_as_of, values: {field: value}, signals}` or `{as_of, values: null, no_answer}` "
                     "where the module's inputs had no history yet.", ChargeMeta, module=str, **{"from": str},
                     to=str, step=str, fields=list[str] | None, time_travel=bool, steps=int, computed_on_demand=int,
                     points=Objs)
TradingRegime = body("TradingRegime", "GET /api/v1/trading/regime", ModuleMeta, product=str, as_of=str,
                     generated_at=str, current=Obj, transitions=Obj, methodology=Obj, data_sources=Obj)
TradingSignals = body("TradingSignals", "GET /api/v1/trading/signals", ModuleMeta, product=str, as_of=str,
                      generated_at=str, signals=Objs, methodology=Obj, data_sources=Obj, filters=Obj)
DayTradeIdeas = body("DayTradeIdeas", "GET /api/v1/trading/day-trade-ideas", track=str | None, limit=int,
                     events=Objs, journal_events=int, terms_version=str, disclosure=Any, access=Obj, chain=Obj)
TermsAccepted = body("TermsAccepted", "POST /api/v1/trading/day-trade-ideas/accept-terms", accepted=bool,
                     terms_version=str, accepted_at=str, feed_access=bool, tiers=list[str])
DayTradeTrackRecord = body("DayTradeTrackRecord", "GET /api/v1/trading/day-trade-ideas/track-record (hypothetical)",
                           ChargeMeta, hypothetical=bool, statement=str, method=str, all=Obj, by_track=Obj,
                           journal=Obj)
Predictions = body("Predictions", "GET /api/v1/predictions", ModuleMeta, as_of=str, generated_at=str, origin=str,
                   status=str, total=int, counts=dict[str, int], chain=Obj | None, verification=Obj,
                   predictions=Objs)
PredictionAccuracy = body("PredictionAccuracy", "GET /api/v1/predictions/accuracy", ModuleMeta, as_of=str,
                          generated_at=str, by_origin=Obj, kinds=Obj | None, methodology=str,
                          regime_classifier=Obj | None)
ChainExport = body("ChainExport", "GET /api/v1/predictions/chain", chain=str, origin=str, after=int, records=Objs,
                   heads=Objs, next_after=int | None, verify=Obj)
SigningKey = body("SigningKey", "GET /.well-known/marketintel-signing-key.json", algorithm=str, key_id=str,
                  public_key_hex=str, public_key_base64=str, chains=dict[str, str], hashing=str,
                  how_to_verify=list[str])
_AGENT = dict(agent_id=str, name=str, tier=str, tier_expires_at=str | None, referral_code=str, balance_sats=int,
              created_at=str)
Registered = body("Registered", "POST /api/v1/agents/register: the key, shown once.", **_AGENT, api_key=str, note=str,
                  next=dict[str, str])
AgentProfile = body("AgentProfile", "GET /api/v1/agents/me", **_AGENT, pools=Objs, pool_order=str, usage=Obj)
Balance = body("Balance", "GET /api/v1/agents/balance", balance_sats=int, credits_sats=dict[str, int], usage=Obj)
ToppedUp = body("ToppedUp", "POST /api/v1/agents/topup", balance_sats=int, credited_sats=int, payment_hash=str)
KeyRotated = body("KeyRotated", "POST /api/v1/agents/rotate-key: the new key, shown once.", agent_id=str,
                  api_key=str, note=str)
Upgraded = body("Upgraded", "POST /api/v1/agents/upgrade (warehouse/ledger/tiers.py claim_upgrade)", tier=str,
                tier_expires_at=str | None, paid_sats=int, credited_to_balance_sats=int, balance_sats=int,
                payment_hash=str)
InvoiceCreated = body("InvoiceCreated", "POST /api/v1/payments/create-invoice", payment_request=str,
                      payment_hash=str, amount_sats=int, expires_at=int, purpose=str, verify=str)
PaymentStatus = body("PaymentStatus", "GET /api/v1/payments/verify/{payment_hash}", payment_hash=str, settled=bool,
                     amount_sats=int, credited=bool, purpose=str, expires_at=int)
CommitmentPlans = body("CommitmentPlans", "GET /api/v1/commitments/plans", plans=Objs, pool_order=str, activate=Obj)
CommitmentActivated = body("CommitmentActivated", "POST /api/v1/commitments/activate", plan=str, paid_sats=int,
                           credits_added_sats=int, credits_sats=int, usable_until=str, balance_sats=int)
CommitmentStatus = body("CommitmentStatus", "GET /api/v1/commitments/status", active=bool,
                        credits_remaining_sats=int, usable_until=str | None, activations=Objs)
SubscriptionPlans = body("SubscriptionPlans", "GET /api/v1/subscriptions/plans", plans=Objs, pool_order=str,
                         subscribe=Obj)
Subscribed = body("Subscribed", "POST /api/v1/subscriptions/subscribe", plan=str, paid_sats=int, renewed=bool,
                  started_at=str, ends_at=str, balance_sats=int)
SubscriptionStatus = body("SubscriptionStatus", "GET /api/v1/subscriptions/status", active=bool, plan=str | None,
                          allocation=Obj, burst_credits=Obj)
ReferralCode = body("ReferralCode", "GET /api/v1/referrals/code", referral_code=str, share=Obj, reward_percent=int,
                    rules=str)
ReferralStats = body("ReferralStats", "GET /api/v1/referrals/stats", agents_referred=int, sats_earned=int,
                     credits_available_sats=int, referred_spend_sats=int, reward_percent=int, rules=str)
ReferralCredits = body("ReferralCredits", "GET /api/v1/referrals/credits", credits_available_sats=int, sats_earned=int)
WebhookSubscribed = body("WebhookSubscribed", "POST /api/v1/webhooks/subscribe: the secret, shown once.",
                         subscription_id=str, event_type=str, callback_url=str, created_at=str, active=bool,
                         secret=str, secret_shown_once=bool, signing=Any, delivery=str)
WebhookUnsubscribed = body("WebhookUnsubscribed", "DELETE /api/v1/webhooks/unsubscribe", unsubscribed=bool,
                           subscription_id=str)
WebhookDeliveries = body("WebhookDeliveries", "GET /api/v1/webhooks/deliveries", deliveries=Objs, count=int,
                         limit=int, subscriptions=Objs, delivery=str)
EventTypes = body("EventTypes", "GET /api/v1/webhooks/events", event_types=Objs, count=int, tiers=list[str],
                  urgencies=list[str], your_tier=str | None)
Alerts = body("Alerts", "GET /api/v1/alerts", alerts=Objs, count=int, live=int, tier=str, limit=int,
              limits_by_tier=dict[str, int])
AlertCreated = body("AlertCreated", "POST /api/v1/alerts/subscribe (`secret` when a callback_url was given)",
                    alert_id=str, name=str, conditions=Objs, logic=str, status=str, created_at=str)
AlertFields = body("AlertFields", "GET /api/v1/alerts/fields", fields=Objs, operators=Objs, logic=list[str],
                   limits_by_tier=dict[str, int])
AlertDeleted = body("AlertDeleted", "DELETE /api/v1/alerts/{alert_id}", deleted=bool, alert_id=str)
AlertPackages = body("AlertPackages", "GET /api/v1/alert-packages", packages=Objs, delivery_channels=list[str],
                     urgencies=list[str], currency=str)
MyPackages = body("MyPackages", "GET /api/v1/alert-packages/my", subscriptions=Objs, active=int)
PackageSubscribed = body("PackageSubscribed", "POST /api/v1/alert-packages/{package_id}/subscribe", ChargeMeta,
                         subscription=Obj, charged_sats=int, paid_with=str | None, balance_sats=int | None)
PackageUnsubscribed = body("PackageUnsubscribed", "DELETE /api/v1/alert-packages/{package_id}/unsubscribe",
                           unsubscribed=bool, subscription=Obj)
PackageHistory = body("PackageHistory", "GET /api/v1/alert-packages/{package_id}/history", package_id=str,
                      events=Objs, count=int)
ScannerStatus = body("ScannerStatus", "GET /api/v1/events/scanner", status=str, market_time=str, scans=int,
                     events_emitted=dict[str, int], events_emitted_total=int, cooldowns=Obj, data_source=str,
                     simulated=bool)
EventStatus = body("EventStatus", "GET /api/v1/events/status", tier=str, available_types=list[str],
                   active_connections=int, usage=Obj, stream=Obj)
Templates = body("Templates", "GET /api/v1/templates", count=int, templates=Objs)
