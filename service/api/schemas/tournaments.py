"""The bodies of the bot and tournament endpoints as marshmallow schemas: the requests they load, and the
answers openapi.yaml describes (service/api/openapi/tournaments.py), checked by schemathesis like every other."""
from __future__ import annotations

from marshmallow import RAISE, Schema, fields, validate

from .answers import Open
from .requests import StrictInt, doc

BOT_NAME = validate.Regexp(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$",
                           error="1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit")
STATUSES = ["registering", "ready", "running", "paused", "finished", "cancelled"]


# ----- requests ----------------------------------------------------------------------
class BotCreate(Schema):
    class Meta:
        unknown = RAISE

    name = fields.String(required=True, validate=BOT_NAME, metadata=doc("Unique among the service's bots."))
    owner = fields.String(required=True, validate=validate.Length(1, 200), metadata=doc(
        "How to reach whoever runs the bot (an e-mail address, a URL)."))


class Registration(Schema):
    class Meta:
        unknown = RAISE

    until = fields.String(required=True, validate=validate.Length(1, 64), metadata=doc(
        "RFC 3339 time (with its offset) when registration closes."))


class TournamentCreate(Schema):
    class Meta:
        unknown = RAISE

    description = fields.Dict(required=True, metadata=doc(
        "The local runner's description without `bots`, plus `absent` ({grace_s, then: forfeit|withdraw}) and "
        "`start` (RFC 3339 or null): docs/tournaments.md."))
    entries = fields.List(fields.String(validate=validate.Length(1, 64)), validate=validate.Length(1, 1000),
                          metadata=doc("The bots' ids; give this or `registration`."))
    registration = fields.Nested(Registration, metadata=doc("Open registration instead of `entries`."))


class Withdrawal(Schema):
    class Meta:
        unknown = RAISE

    bot = fields.String(required=True, validate=validate.Length(1, 64), metadata=doc("The entry's bot id."))


# ----- answers -----------------------------------------------------------------------
class Rating(Open):
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)
    ordinal = fields.Float(required=True, metadata=doc("mu - 3 sigma: the rating shown."))
    matches = StrictInt(required=True)


class Bot(Open):
    id = fields.String(required=True)
    name = fields.String(required=True)
    owner = fields.String(required=True)
    connected = fields.Boolean(required=True, metadata=doc("The bot holds its event stream now."))
    ratings = fields.Dict(keys=fields.String(), values=fields.Nested(Rating), required=True,
                          metadata=doc("Per game."))


class BotCreated(Open):
    id = fields.String(required=True)
    name = fields.String(required=True)
    owner = fields.String(required=True)
    token = fields.String(required=True, metadata=doc("The bot token, shown only now (the service keeps its hash)."))


class TournamentCreated(Open):
    id = fields.String(required=True)
    organiser_token = fields.String(required=True, metadata=doc("Shown only now: the organiser's actions need it."))
    status = fields.String(required=True, metadata=doc(enum=STATUSES))
    url = fields.String(required=True)
    page = fields.String(required=True)


class Entry(Open):
    bot = fields.String(required=True)
    name = fields.String(required=True)
    status = fields.String(required=True, metadata=doc(enum=["active", "withdrawn"]))
    connected = fields.Boolean(required=True)


class MatchTable(Open):
    match = fields.String(required=True)
    bots = fields.List(fields.String(), required=True, metadata=doc("Bot names, one per seat."))
    session = fields.String(required=True, allow_none=True, metadata=doc("Null until its session is made."))
    table = fields.String(required=True, allow_none=True, metadata=doc("The table page: /table/<session>."))
    result = fields.Dict(required=True, allow_none=True, metadata=doc("The match's result once recorded."))


class RoundView(Open):
    index = StrictInt(required=True)
    game = fields.String(required=True, metadata=doc("<game>/<players>"))
    tables = fields.List(fields.Nested(MatchTable), required=True)
    byes = fields.List(fields.String(), required=True)


class Progress(Open):
    done = StrictInt(required=True)
    total = StrictInt(required=True)
    eta_s = fields.Float(required=True, allow_none=True, metadata=doc("Seconds left, estimated; null before the "
                                                                      "first match is recorded."))


class TournamentView(Open):
    id = fields.String(required=True)
    name = fields.String(required=True)
    status = fields.String(required=True, metadata=doc(enum=STATUSES))
    description = fields.Dict(required=True)
    entries = fields.List(fields.Nested(Entry), required=True)
    rounds = fields.List(fields.Nested(RoundView), required=True)
    standings = fields.List(fields.Dict(), required=True, metadata=doc(
        "The standings so far (rank, bot, points, duplicate, payoff, buchholz, matches, byes, forfeits), each row "
        "with the bot's `rating` (its ordinal in the tournament's first game; null before it has one)."))
    progress = fields.Nested(Progress, required=True)
    incidents = fields.List(fields.Dict(), required=True)


class Standings(Open):
    tournament = fields.String(required=True)
    round = StrictInt(required=True, metadata=doc("The last round paired (0 before the first)."))
    standings = fields.List(fields.Dict(), required=True)


class Archive(Open):
    DESCRIPTION = ("Everything needed to check a tournament: its description and entries, every round's pairing, "
                   "every match's record (commitment, seed or deals, moves with times, result, incidents) and the "
                   "published standings with their CSV and Markdown tables.")

    format = fields.String(required=True, metadata=doc(enum=["card-referee-tournament-archive/1"]))
    tournament = fields.Dict(required=True)
    rounds = fields.List(fields.Dict(), required=True)
    matches = fields.List(fields.Dict(), required=True)
    standings = fields.Dict(required=True, metadata=doc("{json: rows, csv: text, md: text}"))
    ratings = fields.Dict(required=True, metadata=doc("game -> bot name -> rating, of the entries."))


class LadderRow(Open):
    bot = fields.String(required=True, allow_none=True)
    name = fields.String(required=True)
    mu = fields.Float(required=True)
    sigma = fields.Float(required=True)
    ordinal = fields.Float(required=True)
    matches = StrictInt(required=True)


class Ladder(Open):
    game = fields.String(required=True)
    ladder = fields.List(fields.Nested(LadderRow), required=True)


class TournamentStatus(Open):
    id = fields.String(required=True)
    status = fields.String(required=True, metadata=doc(enum=STATUSES))


# openapi.yaml's components, by name (a schema nested in another before it)
BODIES = ("BotCreate", "Registration", "TournamentCreate", "Withdrawal", "Rating", "Bot", "BotCreated",
          "TournamentCreated", "Entry", "MatchTable", "RoundView", "Progress", "TournamentView", "Standings", "Archive",
          "LadderRow", "Ladder", "TournamentStatus")
BOT_CREATE = BotCreate()
TOURNAMENT_CREATE = TournamentCreate()
WITHDRAWAL = Withdrawal()
