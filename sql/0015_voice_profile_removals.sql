-- What a person removed from a voice profile (PATCH /voice-profiles/{id}), as JSON: each removed trait with the
-- contents whose edits had taught it, so that learning does not take it again from those edits.
ALTER TABLE voice_profiles ADD COLUMN removed TEXT NOT NULL DEFAULT '{}';
