-- What a game needs of a worker, written when it is scheduled: ',' and each seat's language
-- (submissions.language), each followed by ',' (repeats allowed). A claim on PostgreSQL checks it
-- row by row along the queue's index and stops at the batch's size, where the check through the
-- seats was an anti-join over the whole queue (135 ms a claim at 200 000 queued games). Games
-- scheduled before this migration have none and are checked through their seats.
ALTER TABLE games ADD COLUMN needs TEXT;
