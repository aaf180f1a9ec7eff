package main

import (
	"context"
	"crypto"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

// passwordEnv names the variable that holds the password of an encrypted
// key, as for cosign.
const passwordEnv = "COSIGN_PASSWORD"

type signOptions struct {
	io  *streams
	ref string
	key string
}

func newSignCmd(s *streams) *cobra.Command {
	opts := &signOptions{io: s}
	cmd := &cobra.Command{
		Use:   "sign oci://HOST/REPO@DIGEST --key KEY",
		Short: "Sign a skill published to an OCI registry",
		Long: `Sign signs the skill's manifest or image index that the pinned reference
names with the private key KEY and attaches the signature to it in the
registry, as cosign 3 does ("cosign sign --key"): a Sigstore bundle in an
OCI referrer. An image that "agentskills push" wrote is signed by its
index, the digest push printed, as cosign signs a multi-platform image:
the index names each platform's manifest by its digest.
"cosign verify --key KEY.pub" accepts it, and so does
"agentskills add --key". It prints the digest of the signature's manifest
on stdout.

KEY is a PEM file: a key pair that "cosign generate-key-pair" wrote
(encrypted: its password is read from COSIGN_PASSWORD, as cosign reads
it), or a plain PKCS#8 ECDSA (P-256, P-384, P-521) or Ed25519 private key.
Nothing is sent to a transparency log.

The reference names the manifest by its digest, the one "agentskills push"
printed, so that what is signed is what was checked; a tag alone is
refused.`,
		Example: `  COSIGN_PASSWORD=... agentskills sign oci://ghcr.io/acme/review:1.0.0@sha256:... --key cosign.key
  agentskills push --sign-key cosign.key ./review oci://ghcr.io/acme/review:1.0.0`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return usageErrorf("want oci://HOST/REPO@DIGEST")
			case len(args) > 1:
				return usageErrorf("too many arguments: want oci://HOST/REPO@DIGEST, got %d arguments", len(args))
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			opts.ref = args[0]
			return runSign(cmd.Context(), opts)
		}),
	}
	cmd.Flags().StringVar(&opts.key, "key", "", "the private key to sign with: a PEM file (required)")
	return cmd
}

func runSign(ctx context.Context, opts *signOptions) error {
	if opts.key == "" {
		return usageErrorf("--key is required: the private key to sign with (cosign generate-key-pair makes one)")
	}
	ref, err := oci.ParseReference(opts.ref)
	if err != nil {
		return inputError{err}
	}
	if ref.Digest == "" {
		return inputError{fmt.Errorf("%s names no digest: sign the manifest by its digest, %s@sha256:... (agentskills push prints it)", opts.ref, opts.ref)}
	}
	key, err := loadSigningKey(opts.key)
	if err != nil {
		return err
	}
	d, err := oci.Sign(ctx, opts.ref, signature.KeySigner{Key: key})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(opts.io.out, d)
	return err
}

// loadSigningKey reads the private key in the file path, encrypted ones
// with the password in COSIGN_PASSWORD.
func loadSigningKey(path string) (crypto.Signer, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, inputError{fmt.Errorf("read the signing key: %w", err)}
	}
	password, set := os.LookupEnv(passwordEnv)
	if block, _ := pem.Decode(data); block != nil && strings.HasPrefix(block.Type, "ENCRYPTED") && !set {
		return nil, inputError{fmt.Errorf("%s is an encrypted key (%s) and %s is not set: set it to the key's password (empty when it has none)", path, block.Type, passwordEnv)}
	}
	key, err := signature.LoadPrivateKey(data, []byte(password))
	if err != nil {
		if errors.Is(err, signature.ErrKey) {
			return nil, inputError{fmt.Errorf("%s: %w", path, err)}
		}
		return nil, err
	}
	return key, nil
}
