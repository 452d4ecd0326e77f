-- The ids of contents, memories, reference materials and conversions are never given again. A rowid table gives a
-- new row the largest id plus one, so deleting the newest record handed its id to the next one: a retried DELETE
-- removed an unrelated record, an idempotent replay or a version's sources named another record, and a conversion
-- that finished after its content was deleted and replaced was stored against the new one. Images already use
-- AUTOINCREMENT; these tables would have to be rebuilt for it (with foreign keys off, which a migration's
-- transaction cannot do). Instead each insert takes the next id from id_sequences, which a trigger keeps at the
-- largest id ever stored. (PostgreSQL; rules in README.md: the id columns' identities stay unused by these inserts,
-- and id_sequences is what every engine's insert reads.)
CREATE TABLE id_sequences (
  name TEXT COLLATE "C" PRIMARY KEY,
  seq BIGINT NOT NULL
);

INSERT INTO id_sequences (name, seq)
  SELECT 'contents', COALESCE(MAX(id), 0) FROM contents
  UNION ALL SELECT 'memories', COALESCE(MAX(id), 0) FROM memories
  UNION ALL SELECT 'reference_materials', COALESCE(MAX(id), 0) FROM reference_materials
  UNION ALL SELECT 'conversions', COALESCE(MAX(id), 0) FROM conversions;

-- One function for every table's trigger of each kind: the sequence's row is named after the table (TG_TABLE_NAME),
-- as in SQLite's triggers, which differ only in that name. sql/postgres/0020 adds accounts and users to them.
CREATE FUNCTION id_sequence_follows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE id_sequences SET seq = GREATEST(seq, NEW.id) WHERE name = TG_TABLE_NAME;
  RETURN NULL;
END;
$$;

-- Without its row in id_sequences a table would silently go back to giving deleted ids again (the insert's id would
-- be NULL, which takes the largest plus one): refuse the insert instead. SQLite's triggers test this in their WHEN
-- clause; a PostgreSQL trigger's WHEN cannot hold a subquery, so the function tests it.
CREATE FUNCTION id_sequence_present() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM id_sequences WHERE name = TG_TABLE_NAME) THEN
    RAISE EXCEPTION 'id_sequences has no row for %', TG_TABLE_NAME;
  END IF;
  RETURN NEW;
END;
$$;

CREATE TRIGGER contents_id_sequence AFTER INSERT ON contents
  FOR EACH ROW EXECUTE FUNCTION id_sequence_follows();
CREATE TRIGGER memories_id_sequence AFTER INSERT ON memories
  FOR EACH ROW EXECUTE FUNCTION id_sequence_follows();
CREATE TRIGGER reference_materials_id_sequence AFTER INSERT ON reference_materials
  FOR EACH ROW EXECUTE FUNCTION id_sequence_follows();
CREATE TRIGGER conversions_id_sequence AFTER INSERT ON conversions
  FOR EACH ROW EXECUTE FUNCTION id_sequence_follows();

CREATE TRIGGER contents_id_sequence_present BEFORE INSERT ON contents
  FOR EACH ROW EXECUTE FUNCTION id_sequence_present();
CREATE TRIGGER memories_id_sequence_present BEFORE INSERT ON memories
  FOR EACH ROW EXECUTE FUNCTION id_sequence_present();
CREATE TRIGGER reference_materials_id_sequence_present BEFORE INSERT ON reference_materials
  FOR EACH ROW EXECUTE FUNCTION id_sequence_present();
CREATE TRIGGER conversions_id_sequence_present BEFORE INSERT ON conversions
  FOR EACH ROW EXECUTE FUNCTION id_sequence_present();
