"""Which encoding a plain-text file is in: byte-order marks, strict decodes, chardet, and a
score of how much the decoded text reads like real writing."""
