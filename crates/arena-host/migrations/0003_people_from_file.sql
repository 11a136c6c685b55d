-- Whether a user comes from the contest file (1) or registered on the page (0): the file is the
-- authority on its people, so one removed from it can no longer sign in.
ALTER TABLE users ADD COLUMN from_file BIGINT NOT NULL DEFAULT 0;
