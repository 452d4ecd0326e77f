-- What a person removed from a voice profile (PATCH /voice-profiles/{id}), as JSON: each removed trait with the
-- contents whose edits had taught it, so that learning does not take it again from those edits.
-- (PostgreSQL; rules in README.md.)
ALTER TABLE voice_profiles ADD COLUMN removed TEXT COLLATE "C" NOT NULL DEFAULT '{}';
