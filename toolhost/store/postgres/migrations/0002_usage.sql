-- Usage per client key and UTC day. Replicas add to a row with one
-- upsert each (INSERT ... ON CONFLICT DO UPDATE SET n = n + excluded.n),
-- which PostgreSQL runs atomically: no addition is lost to another.
CREATE TABLE usage_days (
	key_name          text COLLATE "C" NOT NULL,
	day               date NOT NULL,
	requests          bigint NOT NULL DEFAULT 0,
	prompt_tokens     bigint NOT NULL DEFAULT 0,
	completion_tokens bigint NOT NULL DEFAULT 0,
	cached_tokens     bigint NOT NULL DEFAULT 0,
	tool_calls        bigint NOT NULL DEFAULT 0,
	expires_at        timestamptz NOT NULL,
	PRIMARY KEY (key_name, day)
);

CREATE INDEX usage_days_expiry ON usage_days (expires_at);
