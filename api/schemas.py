"""Request declarations: they validate requests and generate the OpenAPI description."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import date, datetime
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictFloat, StrictInt, field_validator

from api.text_fields import safe_line, safe_text
from charging.prices import ASK_PRICES
from intel.events.packages import DELIVERY_CHANNELS, PACKAGE_TIERS
from intel.events.types import URGENCIES
from intel.formats import FORMATS
from intel.parallels import CONDITION_TAGS
from intel.predictions.questions import CATEGORIES
from intel.tickers import TICKER_PATTERN
from warehouse.ledger.tables import ALERT_LOGIC

PAYMENT_HASH_PATTERN = r"^[A-Za-z0-9-]{8,128}$"
Format = Literal[FORMATS]
Depth = Literal["quick", "standard", "deep"]


def documented_enum(names: Callable[[], Iterable[str]]) -> Callable[[dict], None]:
    """`json_schema_extra` naming a field's accepted values as a JSON Schema `enum`, read from their registry
    when the OpenAPI document is generated (so importing this module loads no registry). The field's validator
    or its route still checks them with its own message; without the enum the document promised any string and
    clients (and the fuzz) sent values that were then refused."""
    def add(schema: dict) -> None:
        schema["enum"] = sorted(names())
    return add


def _registered_modules() -> Iterable[str]:
    from intel.registry import modules

    return modules()


def _strategies_or_all() -> Iterable[str]:
    from intel.signals.product import ALL
    from intel.signals.strategies import strategies

    return [ALL, *strategies()]


def _content_types() -> Iterable[str]:
    from intel.content.types import content_types

    return content_types()


_TAG = "|".join(sorted(CONDITION_TAGS))
CONDITIONS_PATTERN = rf"^(({_TAG})(,({_TAG}))*)?$"  # the canonical form; spaces and capitals are also accepted


# a past moment: an ISO date, or an ISO date-time (seconds, fractions and an offset optional)
PastDate = Annotated[date, Field(json_schema_extra={"pattern": r"^\d{4}-\d{2}-\d{2}$", "maxLength": 10})]
PastMoment = Annotated[datetime, Field(json_schema_extra={
    "pattern": r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?$", "maxLength": 32})]
AS_OF_TEXT = ("Answer as of a past moment: a date (the start of that day, 00:00 UTC, as a replay started on it) or a "
              "date-time (that moment; UTC unless it says), computed from the warehouse with only what was released "
              "by then.")


class RegimeQuery(BaseModel):
    as_of: PastDate | PastMoment | None = Field(None, description=f"{AS_OF_TEXT} Priced as `past:regime` "
                                          "(/api/v1/pricing).")


class PulseQuery(BaseModel):
    as_of: PastDate | PastMoment | None = Field(None, description=f"{AS_OF_TEXT} Free, as the pulse is.")


class IntelligenceQuery(BaseModel):
    """A module query's parameters, declared once: REST's query string, each batch item, and the arguments of the
    MCP and function-calling module tools (api/tools.py) are this model; ModuleQueries.serve reads it. A parameter
    added here reaches all of them, and the OpenAPI document and tool schemas with it."""

    ticker: str | None = Field(
        None, max_length=10, pattern=TICKER_PATTERN,
        description="Symbol for ticker modules (letters, digits, . ^ = -), at most 10 characters")
    include_prompt: bool = Field(False, description="Add pre-formatted prompt text to the response")
    format: Format = Field("full", description="Rendering of the payload")
    as_of: PastDate | PastMoment | None = Field(None, description=f"{AS_OF_TEXT} Priced as `past:<module>` "
                                          "(/api/v1/pricing). A ticker module reads the bars final by then, as the "
                                          "source serves them now (`price_vintage` says when they are adjusted).")


HISTORY_MAX_STEPS = 5500  # every market day from 2005 to 2026: one module's whole stored history in one call
FIELDS_PATTERN = r"^[A-Za-z0-9_.\[\]]+(,[A-Za-z0-9_.\[\]]+)*$"


class HistoryQuery(BaseModel):
    """`/intelligence/{module}/history`: a module's figures at each step of a past range."""

    model_config = ConfigDict(populate_by_name=True)
    from_: PastDate = Field(alias="from", description="First day of the range (ISO date)")
    to: PastDate = Field(description="Last day of the range (ISO date), not after the market clock's date")
    step: Literal["day", "week", "month"] = Field(
        "day", description="`day`: every weekday; `week`: each Monday; `month`: the first weekday of each month. "
        "Each step is the answer at 00:00 UTC of its day, as `as_of=<day>` gives it")
    fields: str | None = Field(None, max_length=2000, pattern=FIELDS_PATTERN,
                               description="Comma-separated field paths of the module's `data` (as its response "
                               "schema in /openapi.json names them, e.g. `level`, `bands_20d.upper`), and `signals` "
                               "for its signals; default: every scalar figure and the signals")


class RegisterBody(BaseModel):
    # Agents send what their frameworks send (a description, a version...): fields we do not know are
    # ignored (and named in the answer's `ignored_fields`); a known field of the wrong type is still a 422.
    model_config = ConfigDict(extra="ignore")
    name: safe_line(100, min_length=1) = Field(description="Display name of the agent")
    referral_code: safe_line(64, min_length=4) | None = Field(None, description="Code of a referring agent")


class TopupBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    payment_hash: str = Field(pattern=PAYMENT_HASH_PATTERN, description="Hash of the paid invoice (hex)")
    preimage: str = Field(pattern=r"^[0-9a-fA-F]{64}$", description="Payment preimage (hex) the wallet returned")


MODULE_NAME_PATTERN = r"^[a-z0-9_]{1,64}$"
BATCH_MAX_MODULES = 20


def _ticker_modules_need_a_ticker(schema: dict) -> None:
    """The document says what the batch checks: a module that takes a ticker is refused without one."""
    from intel.registry import modules

    needing = sorted(name for name, module in modules().items() if module.takes_ticker)
    schema["if"] = {"properties": {"module": {"enum": needing}}, "required": ["module"]}
    schema["then"] = {"required": ["ticker"], "properties": {"ticker": {"type": "string"}}}


class BatchItem(IntelligenceQuery):
    """One module of a batch: its name and a module query's parameters (the batch's format and include_prompt
    unless it sets its own)."""

    model_config = ConfigDict(extra="forbid", json_schema_extra=_ticker_modules_need_a_ticker)
    module: str = Field(pattern=MODULE_NAME_PATTERN, description="Module name, as in /api/v1/modules",
                        json_schema_extra=documented_enum(_registered_modules))
    format: Format | None = Field(None, description="Overrides the batch's format for this module")
    include_prompt: bool | None = Field(None, description="Overrides the batch's include_prompt for this module")

    def query(self, batch: BatchBody) -> IntelligenceQuery:
        """This module's query, the batch's settings filling what the item leaves out."""
        fields = self.model_dump(exclude={"module"}, exclude_none=True)
        return IntelligenceQuery(**{"format": batch.format, "include_prompt": batch.include_prompt, **fields})


class BatchBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    modules: list[BatchItem] = Field(
        min_length=1, max_length=BATCH_MAX_MODULES,
        description=f"1 to {BATCH_MAX_MODULES} modules: names, or objects {{module, ticker, format}}")
    format: Format = Field("full", description="Rendering for every module without its own format")
    include_prompt: bool = Field(False, description="Add pre-formatted prompt text to each result")

    @field_validator("modules", mode="before")
    @classmethod
    def names_as_items(cls, value):
        """A bare name is shorthand for {"module": name}."""
        if isinstance(value, list):
            return [{"module": v} if isinstance(v, str) else v for v in value]
        return value


# Unified context (api/resources/unified.py), ask (api/resources/synthesis.py) and consensus
# (api/resources/consensus.py).

class UnifiedQuery(BaseModel):
    topic: safe_line(200, min_length=1) | None = Field(None, description="What to focus on; all topics if omitted")
    depth: Depth = Field("standard", description="How many modules to aggregate")
    include_prompt: bool = Field(False, description="Add pre-formatted prompt text to the response")


class AskBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    question: safe_text(2000, min_length=1) = Field(description="The question, in natural language")
    depth: Depth = Field("standard", description="Priced by depth: "
                         + ", ".join(f"{d} {p} sats" for d, p in ASK_PRICES.items()))


# Synthesis requests: the Idempotency-Key header, the request id a 202 hands back, and content generation
# (api/resources/content.py, whose types come from intel/content/types.py).
IDEMPOTENCY_KEY_PATTERN = r"^[\x21-\x7e]{1,200}$"  # printable ASCII, no spaces: what clients send (UUIDs, hashes)
SYNTHESIS_REQUEST_ID_PATTERN = r"^[A-Za-z0-9._-]{8,64}$"
CHART_FILENAME_PATTERN = r"^[a-z0-9_-]{1,120}\.png$"


def _ticker_types_need_a_ticker(schema: dict) -> None:
    """The document says what the route checks: a type with `needs_ticker` is refused without a ticker."""
    from intel.content.types import content_types

    needing = sorted(name for name, kind in content_types().items() if kind.needs_ticker)
    schema["if"] = {"properties": {"content_type": {"enum": needing}}, "required": ["content_type"]}
    schema["then"] = {"required": ["ticker"], "properties": {"ticker": {"type": "string"}}}


class ContentBody(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_extra=_ticker_types_need_a_ticker)
    content_type: safe_line(64, min_length=1) = Field(description="One of the ids of GET /api/v1/content/types",
                                                      json_schema_extra=documented_enum(_content_types))
    topic: safe_line(200, min_length=1) | None = Field(None, description="What the piece should focus on")
    ticker: str | None = Field(None, max_length=10, pattern=TICKER_PATTERN,
                               description="For the types that need one (`needs_ticker` in /api/v1/content/types)")

    @field_validator("content_type")
    @classmethod
    def known_type(cls, value: str) -> str:
        from intel.content.types import content_types

        if value not in content_types():
            raise ValueError(f"unknown content type '{value}'; one of: {', '.join(sorted(content_types()))}")
        return value


class ParallelsQuery(BaseModel):
    conditions: safe_line(500) | None = Field(
        None, description="Comma-separated condition tags; empty: detected from live data",
        json_schema_extra={"pattern": CONDITIONS_PATTERN})
    top_n: int = Field(5, ge=1, le=15, description="How many episodes to rank")
    as_of: PastDate | PastMoment | None = Field(None, description=f"{AS_OF_TEXT} Priced as `past:parallels` "
                                          "(/api/v1/pricing).")

    @field_validator("conditions")
    @classmethod
    def known_tags(cls, value: str | None) -> str | None:
        unknown = [t for t in tags_of(value) if t not in CONDITION_TAGS]
        if unknown:
            raise ValueError(f"unknown condition tags {unknown}; known: {', '.join(sorted(CONDITION_TAGS))}")
        return value

    @property
    def tags(self) -> list[str]:
        return tags_of(self.conditions)


def tags_of(conditions: str | None) -> list[str]:
    return [t.strip().lower() for t in (conditions or "").split(",") if t.strip()]


class TradingSignalsQuery(BaseModel):
    strategy: safe_line(64) = Field("all", description="all, or one strategy: fed_macro, crypto, convergence, "
                                    "composite", json_schema_extra=documented_enum(_strategies_or_all))
    min_edge: float | None = Field(None, ge=0.01, le=0.5,
                                   description="Only signals whose absolute edge estimate (a fractional return over "
                                               "the signal's horizon: 0.01 = 1 point) is at least this; absent: "
                                               "every signal")

    @field_validator("strategy")
    @classmethod
    def known_strategy(cls, value: str) -> str:
        from intel.signals.product import ALL
        from intel.signals.strategies import strategies

        if value != ALL and value not in strategies():
            raise ValueError(f"unknown strategy '{value}'; one of: {ALL}, {', '.join(strategies())}")
        return value


class ConsensusQuery(BaseModel):
    hours: int = Field(24, ge=1, le=168, description="Look-back window in hours")


class TrackRecordQuery(BaseModel):
    category: safe_line(64, min_length=1) | None = Field(None, description="Only predictions of this category",
                                      json_schema_extra={"enum": list(CATEGORIES)})
    min_confidence: float | None = Field(None, ge=0.0, le=1.0, description="Only predictions at least this confident")
    days_back: int | None = Field(None, ge=1, le=365, description="Only predictions made this many days back")
    status: Literal["open", "resolved", "all"] = Field("all", description="Which predictions")


Origin = Literal["live", "backtest"]
PREDICTIONS_MAX_LIMIT = 200


class PredictionsQuery(BaseModel):
    status: Literal["open", "resolved", "all"] = Field("all", description="Open, resolved or all predictions")
    limit: int = Field(50, ge=1, le=PREDICTIONS_MAX_LIMIT, description="Newest first, at most 200")
    origin: Origin = Field("live", description="The live record, or the back-test's (never mixed)")


class AccuracyQuery(BaseModel):
    origin: Origin | None = Field(None, description="One origin's figures only; both when omitted")


# Webhooks (api/resources/webhooks.py)
WEBHOOK_DELIVERIES_MAX_LIMIT = 200
URL_MAX_CHARS = 2000  # a callback URL, as browsers and proxies commonly hold


class WebhookSubscribeBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    event_type: safe_line(60, min_length=1) = Field(
        description="One event type of GET /api/v1/webhooks/events that your tier may receive")
    callback_url: safe_line(URL_MAX_CHARS, min_length=1) = Field(
        description="An https URL on a public address; it receives a signed POST per event")


class WebhookUnsubscribeQuery(BaseModel):
    subscription_id: safe_line(40, min_length=1) = Field(
        description="The `subscription_id` returned by POST /api/v1/webhooks/subscribe")


class WebhookDeliveriesQuery(BaseModel):
    limit: int = Field(50, ge=1, le=WEBHOOK_DELIVERIES_MAX_LIMIT, description="Newest first, at most 200")


# Alerts and alert packages (api/resources/alerts.py, api/resources/alert_packages.py). A condition's value is
# checked against its field's type there (a number, or one of the field's states), with the field's own message.

ALERT_DEFAULT_COOLDOWN_S = 3600  # a condition that keeps holding fires at most hourly unless asked otherwise
ALERT_DEFAULT_MAX_TRIGGERS = 10
ALERT_MAX_CONDITIONS = 10
ALERT_STATE_MAX_CHARS = 60  # a state field's value (a regime name...): as long as a field name
DAY_S = 86_400


class AlertCondition(BaseModel):
    model_config = ConfigDict(extra="forbid")
    field: safe_line(60, min_length=1) = Field(description="A field of GET /api/v1/alerts/fields")
    operator: safe_line(20, min_length=1) = Field(description="One of the operators of GET /api/v1/alerts/fields")
    value: StrictInt | StrictFloat | safe_line(ALERT_STATE_MAX_CHARS) = Field(
        description="A number, or one of a state field's values")


class AlertSubscribeBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: safe_line(100, min_length=1) = Field(description="Your name for the alert, shown in its events")
    conditions: list[AlertCondition] = Field(min_length=1, max_length=ALERT_MAX_CONDITIONS,
                                             description=f"1 to {ALERT_MAX_CONDITIONS} conditions")
    logic: Literal[ALERT_LOGIC] = Field("AND", description="AND: every condition holds; OR: any one holds")
    cooldown: StrictInt = Field(ALERT_DEFAULT_COOLDOWN_S, ge=0, le=30 * DAY_S,
                                description="Seconds of market time between two triggers")
    max_triggers: StrictInt = Field(ALERT_DEFAULT_MAX_TRIGGERS, ge=1, le=1000,
                                    description="Triggers after which the alert is spent")
    expires_in_seconds: StrictInt = Field(0, ge=0, le=365 * DAY_S, description="0: never expires")
    callback_url: safe_line(URL_MAX_CHARS, min_length=8) | None = Field(
        None, description="An https URL that also receives each trigger, signed")


class AlertPackagesQuery(BaseModel):
    tier: Literal[PACKAGE_TIERS] | None = Field(None, description="Only the packages of this tier")


class PackageSubscribeBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    delivery_channels: list[Literal[DELIVERY_CHANNELS]] = Field(
        min_length=1, max_length=2, description="webhook (needs callback_url), chat (needs chat_webhook_url)")
    callback_url: safe_line(URL_MAX_CHARS, min_length=8) | None = Field(
        None, description="https URL receiving the package's events, signed")
    chat_webhook_url: safe_line(URL_MAX_CHARS, min_length=8) | None = Field(
        None, description="A Slack- or Discord-style incoming webhook (https)")
    min_urgency: Literal[URGENCIES] = Field(
        "low", description="Only events at or above this urgency")


class PackageHistoryQuery(BaseModel):
    limit: int = Field(20, ge=1, le=100, description="Newest first, 1 to 100")


class EventStreamQuery(BaseModel):
    types: safe_line(1000) | None = Field(None, description="Comma-separated event types (GET "
                                          "/api/v1/webhooks/events); omitted: every type your tier may receive")
    last_event_id: safe_line(40) | None = Field(None, description="For clients that cannot send the "
                                                "Last-Event-ID header: resume after this event id (`<seq>-0`)")


DAYTRADE_MAX_LIMIT = 100


class DayTradeQuery(BaseModel):
    limit: int = Field(20, ge=1, le=DAYTRADE_MAX_LIMIT, description="Events, newest first, 1 to 100")
    track: Literal["main", "other", "all"] = Field("main", description="The journal's track, or both")


class AcceptTermsBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: safe_line(40, min_length=1) = Field(..., description="The terms version you accept")
