-- The payor's answers to the invoice's questions, as a JSON array.
ALTER TABLE invoices ADD COLUMN form_responses TEXT;
