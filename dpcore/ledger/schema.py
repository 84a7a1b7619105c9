"""The ledger's versioned schema: each migration step, shared by SQLite and PostgreSQL (:mod:`dpcore.ledger.stores`)."""

#: MIGRATIONS[i] takes the schema from version i to i + 1 ({real} and {id} are the dialect's column types).
MIGRATIONS: tuple[tuple[str, ...], ...] = (
    (
        "CREATE TABLE datasets (key TEXT PRIMARY KEY, label TEXT NOT NULL, epsilon_cap {real}, delta_cap {real},"
        " created TEXT NOT NULL)",
        "CREATE TABLE releases (id {id}, dataset TEXT NOT NULL REFERENCES datasets (key), method TEXT NOT NULL,"
        " epsilon {real} NOT NULL, delta {real} NOT NULL, parts TEXT NOT NULL, params TEXT NOT NULL,"
        " relation TEXT NOT NULL, time TEXT NOT NULL, page TEXT NOT NULL, session TEXT NOT NULL,"
        " status TEXT NOT NULL, release_json TEXT NOT NULL)",
        "CREATE INDEX releases_by_dataset ON releases (dataset)",
        "CREATE TABLE audits (id {id}, subject TEXT NOT NULL, summary TEXT NOT NULL, time TEXT NOT NULL)",
    ),
    (  # 2: owners (custodian scopes), keyed record digests, who acted, charges through shared records, grants
        "ALTER TABLE datasets ADD COLUMN owner TEXT NOT NULL DEFAULT 'local'",
        "ALTER TABLE releases ADD COLUMN actor TEXT NOT NULL DEFAULT ''",
        "ALTER TABLE releases ADD COLUMN via BIGINT NOT NULL DEFAULT 0",
        "CREATE TABLE record_digests (dataset TEXT NOT NULL REFERENCES datasets (key) ON DELETE CASCADE,"
        " digest TEXT NOT NULL, PRIMARY KEY (dataset, digest))",
        "CREATE INDEX record_digests_by_digest ON record_digests (digest)",
        "CREATE TABLE cap_changes (id {id}, dataset TEXT NOT NULL REFERENCES datasets (key) ON DELETE CASCADE,"
        " actor TEXT NOT NULL, epsilon {real} NOT NULL, delta {real} NOT NULL, time TEXT NOT NULL)",
        "CREATE TABLE review_grants (owner TEXT NOT NULL, reviewer TEXT NOT NULL, actor TEXT NOT NULL,"
        " time TEXT NOT NULL, PRIMARY KEY (owner, reviewer))",
    ),
    (  # 3: budgets per person. Earlier releases (persons = 0) stay charged to their data sets: a release on the
        # same data (by its schema-2 keys) carries their total over to the persons it reads, once per history.
        "CREATE TABLE histories (id {id}, owner TEXT NOT NULL, parent BIGINT NOT NULL, release_id BIGINT NOT NULL,"
        " epsilon {real} NOT NULL, delta {real} NOT NULL, releases INTEGER NOT NULL, legacy TEXT NOT NULL,"
        " events TEXT NOT NULL)",
        "CREATE TABLE classes (id {id}, owner TEXT NOT NULL, history BIGINT NOT NULL, size BIGINT NOT NULL)",
        "CREATE TABLE persons (owner TEXT NOT NULL, person TEXT NOT NULL, class BIGINT NOT NULL,"
        " PRIMARY KEY (owner, person)){norowid}",
        "CREATE INDEX persons_by_class ON persons (class)",
        "CREATE TABLE dataset_classes (dataset TEXT NOT NULL, class BIGINT NOT NULL, PRIMARY KEY (dataset, class))",
        "ALTER TABLE releases ADD COLUMN persons BIGINT NOT NULL DEFAULT 0",
        # the privacy events a release ran (JSON; '' when only its (ε, δ) is known), for a tighter accountant
        "ALTER TABLE releases ADD COLUMN events TEXT NOT NULL DEFAULT ''",
    ),
    (  # 4: keys seen together are one person (dpcore.ledger.links): every key → its root person; every upload's
        # contents by origin, to recognise a re-export. Each person recorded so far is its own key.
        "CREATE TABLE person_keys (owner TEXT NOT NULL, key TEXT NOT NULL, person TEXT NOT NULL,"
        " PRIMARY KEY (owner, key)){norowid}",
        "CREATE INDEX person_keys_by_person ON person_keys (owner, person)",
        "INSERT INTO person_keys (owner, key, person) SELECT owner, person, person FROM persons",
        # kind: 0 the whole row, 1 the row without its person column
        "CREATE TABLE content_origins (owner TEXT NOT NULL, content TEXT NOT NULL, origin TEXT NOT NULL,"
        " kind INTEGER NOT NULL, PRIMARY KEY (owner, content, origin, kind)){norowid}",
        "CREATE INDEX content_origins_by_origin ON content_origins (owner, origin)",
    ),
    (  # 5: the file (and what of it) each release read: a data set's name is its first file's, its budget the persons'
        "ALTER TABLE releases ADD COLUMN source TEXT NOT NULL DEFAULT ''",
    ),
    (  # 6: how each release's settings were chosen (dpcore.provenance, JSON; '' for releases recorded before)
        "ALTER TABLE releases ADD COLUMN settings TEXT NOT NULL DEFAULT ''",
    ),
)
