package main

import (
	"strings"
	"testing"

	"github.com/kassapay/kassa/devchain"
)

func TestCheckKeyRefusesPublicKeysOffTheDevChain(t *testing.T) {
	dev := devchain.Accounts()
	own := strings.Repeat("ab", 32)
	tests := []struct {
		name    string
		key     string
		chainID int64
		wantErr bool
	}{
		{"dev key on the dev chain", dev[0].PrivateKey, devchain.ChainID, false},
		{"dev key on Sepolia", dev[0].PrivateKey, 11155111, true},
		{"another dev account with 0x on mainnet", "0x" + strings.ToUpper(dev[3].PrivateKey), 1, true},
		{"own key on mainnet", own, 1, false},
		{"own key on the dev chain", own, devchain.ChainID, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkKey(tt.key, tt.chainID)
			if (err != nil) != tt.wantErr {
				t.Fatalf("checkKey = %v, want error %v", err, tt.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), strings.TrimPrefix(tt.key, "0x")) {
				t.Fatalf("the error repeats the key: %v", err)
			}
		})
	}
}
