package dashboard

import (
	"context"
)

// proofInputs are the re-authentication's inputs: the current password, and
// the code while two-step sign-in is on.
func (d *Dashboard) proofInputs(ctx context.Context, v *visit) ([]field, error) {
	secret, err := d.cfg.Sessions.TOTPSecret(ctx, v.m.ID)
	if err != nil {
		return nil, err
	}
	fields := proofFields("", "", "A refund to an address on mainnet sends real money: confirm it is you.")
	if secret == "" {
		fields = withoutCode(fields)
	}
	return fields, nil
}

// withProofError puts msg by the proof input named param.
func withProofError(fields []field, param, msg string) []field {
	for i := range fields {
		if fields[i].Name == param {
			fields[i].Error = msg
		}
	}
	return fields
}
