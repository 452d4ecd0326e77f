-- The ids of contents, memories, reference materials and conversions are never given again. A rowid table gives a
-- new row the largest id plus one, so deleting the newest record handed its id to the next one: a retried DELETE
-- removed an unrelated record, an idempotent replay or a version's sources named another record, and a conversion
-- that finished after its content was deleted and replaced was stored against the new one. Images already use
-- AUTOINCREMENT; these tables would have to be rebuilt for it (with foreign keys off, which a migration's
-- transaction cannot do). Instead each insert takes the next id from id_sequences, which a trigger keeps at the
-- largest id ever stored.
CREATE TABLE id_sequences (
  name TEXT PRIMARY KEY,
  seq INTEGER NOT NULL
) WITHOUT ROWID;

INSERT INTO id_sequences (name, seq)
  SELECT 'contents', COALESCE(MAX(id), 0) FROM contents
  UNION ALL SELECT 'memories', COALESCE(MAX(id), 0) FROM memories
  UNION ALL SELECT 'reference_materials', COALESCE(MAX(id), 0) FROM reference_materials
  UNION ALL SELECT 'conversions', COALESCE(MAX(id), 0) FROM conversions;

CREATE TRIGGER contents_id_sequence AFTER INSERT ON contents BEGIN
  UPDATE id_sequences SET seq = MAX(seq, NEW.id) WHERE name = 'contents';
END;
CREATE TRIGGER memories_id_sequence AFTER INSERT ON memories BEGIN
  UPDATE id_sequences SET seq = MAX(seq, NEW.id) WHERE name = 'memories';
END;
CREATE TRIGGER reference_materials_id_sequence AFTER INSERT ON reference_materials BEGIN
  UPDATE id_sequences SET seq = MAX(seq, NEW.id) WHERE name = 'reference_materials';
END;
CREATE TRIGGER conversions_id_sequence AFTER INSERT ON conversions BEGIN
  UPDATE id_sequences SET seq = MAX(seq, NEW.id) WHERE name = 'conversions';
END;

-- Without its row in id_sequences a table would silently go back to giving deleted ids again (the insert's id would
-- be NULL, which takes the largest plus one): refuse the insert instead.
CREATE TRIGGER contents_id_sequence_present BEFORE INSERT ON contents
  WHEN NOT EXISTS (SELECT 1 FROM id_sequences WHERE name = 'contents')
  BEGIN SELECT RAISE(ABORT, 'id_sequences has no row for contents'); END;
CREATE TRIGGER memories_id_sequence_present BEFORE INSERT ON memories
  WHEN NOT EXISTS (SELECT 1 FROM id_sequences WHERE name = 'memories')
  BEGIN SELECT RAISE(ABORT, 'id_sequences has no row for memories'); END;
CREATE TRIGGER reference_materials_id_sequence_present BEFORE INSERT ON reference_materials
  WHEN NOT EXISTS (SELECT 1 FROM id_sequences WHERE name = 'reference_materials')
  BEGIN SELECT RAISE(ABORT, 'id_sequences has no row for reference_materials'); END;
CREATE TRIGGER conversions_id_sequence_present BEFORE INSERT ON conversions
  WHEN NOT EXISTS (SELECT 1 FROM id_sequences WHERE name = 'conversions')
  BEGIN SELECT RAISE(ABORT, 'id_sequences has no row for conversions'); END;
