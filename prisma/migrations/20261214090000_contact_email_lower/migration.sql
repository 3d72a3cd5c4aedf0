-- Contact e-mails are compared ignoring case (the check that a body names no contact of an unrelated
-- tenant, on every work order create and note): an index on the lowercased e-mail, so the check is a
-- lookup rather than a scan of every contact. Not expressible in schema.prisma (an expression index).
CREATE INDEX "Contact_email_lower_idx" ON "Contact" (lower(email));
