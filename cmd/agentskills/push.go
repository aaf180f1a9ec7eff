package main

import (
	"context"
	"crypto"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentadaptor/agentadaptor/signature"
	"github.com/agentadaptor/agentadaptor/source/oci"
)

type pushOptions struct {
	io       *streams
	dir      string
	ref      string
	version  string
	source   string
	revision string
	signKey  string
}

func newPushCmd(s *streams) *cobra.Command {
	opts := &pushOptions{io: s}
	cmd := &cobra.Command{
		Use:   "push DIR oci://HOST/REPO:TAG",
		Short: "Publish a skill to an OCI registry",
		Long: `Push publishes the skill in the folder DIR to an OCI registry under a tag,
and prints the digest of its manifest on stdout: the pin to install it by.

The skill is one image-spec 1.1 artifact (artifact type
application/vnd.agentskills.skill.v1) with one tar+gzip layer whose root is
the folder, packed reproducibly: the same folder always gives the same
digest. Its title and description annotations come from SKILL.md, which
must load as agents load it; --version, --source and --revision add the
org.opencontainers.image annotations of those names.

Credentials come from the Docker configuration and its credential helpers
("docker login HOST"). With --sign-key, the manifest is then signed with
that private key as "agentskills sign" signs it (see its help; an
encrypted key's password is read from COSIGN_PASSWORD), so that
"cosign verify --key" and "agentskills add --key" accept it. A registry on a loopback address (localhost,
127.0.0.1, ::1) is spoken to over plain HTTP, every other one over TLS.`,
		Example: `  agentskills push ./skills/review oci://ghcr.io/acme/review:1.0.0
  COSIGN_PASSWORD=... agentskills push --sign-key cosign.key ./review oci://ghcr.io/acme/review:1.0.0
  agentskills push --version 1.0.0 --revision "$(git rev-parse HEAD)" ./review oci://localhost:5000/review:1.0.0`,
		Args: func(cmd *cobra.Command, args []string) error {
			switch {
			case len(args) < 2:
				return usageErrorf("want DIR and oci://HOST/REPO:TAG")
			case len(args) > 2:
				return usageErrorf("too many arguments: want DIR and oci://HOST/REPO:TAG, got %d arguments", len(args))
			}
			return nil
		},
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			opts.dir, opts.ref = args[0], args[1]
			return runPush(cmd.Context(), opts)
		}),
	}
	cmd.Flags().StringVar(&opts.version, "version", "", "the org.opencontainers.image.version annotation")
	cmd.Flags().StringVar(&opts.source, "source", "", "the org.opencontainers.image.source annotation: the URL of the skill's source")
	cmd.Flags().StringVar(&opts.revision, "revision", "", "the org.opencontainers.image.revision annotation: the source revision")
	cmd.Flags().StringVar(&opts.signKey, "sign-key", "", "sign the pushed manifest with this private key, a PEM file (default: not signed)")
	return cmd
}

func runPush(ctx context.Context, opts *pushOptions) error {
	if _, err := oci.ParseReference(opts.ref); err != nil {
		return inputError{err}
	}
	dirs, err := skillDirs([]string{opts.dir})
	if err != nil {
		return err
	}
	var key crypto.Signer
	if opts.signKey != "" {
		// Read before the push, so that a bad key or password sends
		// nothing.
		if key, err = loadSigningKey(opts.signKey); err != nil {
			return err
		}
	}
	digest, err := oci.Push(ctx, dirs[0], opts.ref,
		oci.WithVersion(opts.version),
		oci.WithSourceURL(opts.source),
		oci.WithRevision(opts.revision))
	if err != nil {
		return err
	}
	if key != nil {
		if _, err := oci.Sign(ctx, opts.ref+"@"+digest, signature.KeySigner{Key: key}); err != nil {
			return fmt.Errorf("pushed as %s, not signed: %w (sign it with agentskills sign)", digest, err)
		}
	}
	_, err = fmt.Fprintln(opts.io.out, digest)
	return err
}
