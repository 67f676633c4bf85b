-- Money that needs a person (decisions.md, "Refunds, and money that needs a
-- person"): why each receipt was set aside (attention_reason: late, wrong_token,
-- final_invoice, reorged, settlement_failed; '' for none) and how a merchant
-- resolved it (resolution: accepted, refunded, dismissed; '' while unresolved).
ALTER TABLE receipts ADD COLUMN attention_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE receipts ADD COLUMN resolution TEXT NOT NULL DEFAULT '';
ALTER TABLE receipts ADD COLUMN resolved_at BIGINT;
ALTER TABLE receipts ADD COLUMN resolution_note TEXT NOT NULL DEFAULT '';
-- Receipts set aside before: their reason from what is recorded, in the order
-- kassa.SetAsideReason and the chain rules give them.
UPDATE receipts SET attention_reason = 'reorged'
	WHERE status = 'manual_retry' AND block_number > 0 AND block_hash = '';
UPDATE receipts SET attention_reason = 'late'
	WHERE status = 'manual_retry' AND attention_reason = ''
	AND seen_at >= (SELECT i.expires_at FROM invoices i WHERE i.id = receipts.invoice_id);
UPDATE receipts SET attention_reason = 'wrong_token'
	WHERE status = 'manual_retry' AND attention_reason = ''
	AND token_id <> COALESCE((SELECT i.locked_token_id FROM invoices i WHERE i.id = receipts.invoice_id), token_id);
UPDATE receipts SET attention_reason = 'final_invoice'
	WHERE status = 'manual_retry' AND attention_reason = '';
UPDATE receipts SET attention_reason = 'settlement_failed'
	WHERE status <> 'manual_retry' AND settlement_status = 'failed';
