-- Events' data stored deflated (kassa.Deflate: a format byte, the length, DEFLATE
-- with a preset dictionary): new rows write data = '' and the frame here; rows
-- written before keep their JSON in data and NULL here, and read as before.
ALTER TABLE events ADD COLUMN data_z BLOB;
