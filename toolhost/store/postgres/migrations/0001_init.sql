-- Every record is kept as the JSON the badger backend would store (body),
-- next to the columns it is found or listed by. Ids that are any text
-- (turn ids, lookup keys, response, item and key ids from clients) are
-- SHA-256 digests (bytea), so no text reaches into another record's key;
-- ids that passed store.ValidName are text, compared byte by byte
-- (COLLATE "C") so pages order as in badger. Rows are dead once
-- expires_at <= now (the store's clock) and deleted later by the expiry
-- sweep.

CREATE TABLE turns (
	id_hash    bytea PRIMARY KEY,
	body       text NOT NULL,
	expires_at timestamptz NOT NULL
);
CREATE TABLE turn_keys (
	key_hash   bytea PRIMARY KEY,
	turn_hash  bytea NOT NULL,
	expires_at timestamptz NOT NULL
);
CREATE INDEX turn_keys_turn ON turn_keys (turn_hash);

CREATE TABLE responses (
	key_hash   bytea NOT NULL,
	id_hash    bytea NOT NULL,
	body       text NOT NULL,
	expires_at timestamptz NOT NULL,
	PRIMARY KEY (key_hash, id_hash)
);
CREATE TABLE response_items (
	key_hash   bytea NOT NULL,
	item_hash  bytea NOT NULL,
	id_hash    bytea NOT NULL,
	expires_at timestamptz NOT NULL,
	PRIMARY KEY (key_hash, item_hash)
);
CREATE INDEX response_items_response ON response_items (key_hash, id_hash);

CREATE TABLE text_fallbacks (
	upstream   text COLLATE "C" NOT NULL,
	model_hash bytea NOT NULL,
	body       text NOT NULL,
	expires_at timestamptz NOT NULL,
	PRIMARY KEY (upstream, model_hash)
);

-- started_ns is StartedAt in Unix nanoseconds: timestamptz keeps only
-- microseconds, and a page cursor must name a record exactly.
CREATE TABLE calls (
	id         text COLLATE "C" PRIMARY KEY,
	started_ns bigint NOT NULL,
	tool       text COLLATE "C" NOT NULL,
	status     text COLLATE "C" NOT NULL,
	instance   text COLLATE "C" NOT NULL,
	body       text NOT NULL,
	expires_at timestamptz NOT NULL
);
CREATE INDEX calls_page ON calls (started_ns DESC, id DESC);
CREATE INDEX calls_tool ON calls (tool, started_ns DESC, id DESC);
CREATE INDEX calls_status ON calls (status, started_ns DESC, id DESC);
-- What Recover looks for: calls a dead process may have left open.
CREATE INDEX calls_open ON calls (instance) WHERE status IN ('started', 'pending_approval');

CREATE TABLE replays (
	attempt    text COLLATE "C" NOT NULL,
	call_id    text COLLATE "C" NOT NULL,
	body       text NOT NULL,
	expires_at timestamptz NOT NULL,
	PRIMARY KEY (attempt, call_id)
);

CREATE TABLE actions (
	id         text COLLATE "C" PRIMARY KEY,
	created_ns bigint NOT NULL,
	key_id     text COLLATE "C" NOT NULL,
	status     text COLLATE "C" NOT NULL,
	instance   text COLLATE "C" NOT NULL,
	body       text NOT NULL,
	expires_at timestamptz NOT NULL
);
CREATE INDEX actions_list ON actions (created_ns DESC, id DESC);
CREATE INDEX actions_open ON actions (instance) WHERE status = 'pending';

CREATE TABLE runtime_tools (
	name text COLLATE "C" PRIMARY KEY,
	body text NOT NULL
);

-- expires_at is the key's ExpiresAt rounded up to the microsecond (NULL:
-- never), so the table never drops a key before it stops working; the
-- exact check is made on the record.
CREATE TABLE runtime_keys (
	name       text COLLATE "C" PRIMARY KEY,
	body       text NOT NULL,
	expires_at timestamptz
);

-- One row per live process, renewed by its heartbeat. A process is dead
-- once the database's clock passes its dead_at (which it sets from its own
-- heartbeat interval, so replicas configured differently still agree), and
-- what it left started or pending is resolved by any other.
CREATE TABLE instances (
	id           text COLLATE "C" PRIMARY KEY,
	heartbeat_at timestamptz NOT NULL,
	dead_at      timestamptz NOT NULL
);

CREATE INDEX turns_expiry ON turns (expires_at);
CREATE INDEX turn_keys_expiry ON turn_keys (expires_at);
CREATE INDEX responses_expiry ON responses (expires_at);
CREATE INDEX response_items_expiry ON response_items (expires_at);
CREATE INDEX text_fallbacks_expiry ON text_fallbacks (expires_at);
CREATE INDEX calls_expiry ON calls (expires_at);
CREATE INDEX replays_expiry ON replays (expires_at);
CREATE INDEX actions_expiry ON actions (expires_at);
CREATE INDEX runtime_keys_expiry ON runtime_keys (expires_at) WHERE expires_at IS NOT NULL;
