-- The round of a game in the formats that have rounds (qualifier, final, koth); 0 in the ladder.
ALTER TABLE games ADD COLUMN round BIGINT NOT NULL DEFAULT 0;
