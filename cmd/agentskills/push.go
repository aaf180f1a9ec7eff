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
	format   string
}

func newPushCmd(s *streams) *cobra.Command {
	opts := &pushOptions{io: s}
	cmd := &cobra.Command{
		Use:   "push DIR oci://HOST/REPO:TAG",
		Short: "Publish a skill to an OCI registry",
		Long: `Push publishes the skill in the folder DIR to an OCI registry under a tag,
and prints the digest the tag names on stdout: the pin to install it by.

By default (--format image) the skill is an image that a container
runtime pulls and mounts, as a Kubernetes image volume does: an OCI image
index over linux/amd64 and linux/arm64 image manifests that share one
standard tar+gzip layer whose root is the folder, each with an image
config whose rootfs.diff_ids names it; "oras pull" unpacks it into the
folder it pulls to. The printed digest is the index's. --format artifact
writes the format of earlier releases instead: one image-spec 1.1
artifact (artifact type application/vnd.agentskills.skill.v1), which no
runtime mounts. Both install alike.

The folder is packed reproducibly: the same folder always gives the same
digest. Its title and description annotations come from SKILL.md, which
must load as agents load it; --version, --source and --revision add the
org.opencontainers.image annotations of those names (and, in an image,
the config labels).

A mounted image is read-only and may be noexec: a skill's instructions
should run its scripts as "bash scripts/x.sh", not "./scripts/x.sh".

Credentials come from the Docker configuration and its credential helpers
("docker login HOST"). With --sign-key, what the tag names (an image's
index) is then signed with that private key as "agentskills sign" signs
it (see its help; an encrypted key's password is read from
COSIGN_PASSWORD), so that "cosign verify --key" and "agentskills add
--key" accept it. A registry on a loopback address (localhost,
127.0.0.1, ::1) is spoken to over plain HTTP, every other one over TLS.`,
		Example: `  agentskills push ./skills/review oci://ghcr.io/acme/review:1.0.0
  COSIGN_PASSWORD=... agentskills push --sign-key cosign.key ./review oci://ghcr.io/acme/review:1.0.0
  agentskills push --version 1.0.0 --revision "$(git rev-parse HEAD)" ./review oci://localhost:5000/review:1.0.0
  agentskills push --format artifact ./review oci://ghcr.io/acme/review:1.0.0`,
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
	cmd.Flags().StringVar(&opts.signKey, "sign-key", "", "sign what the tag names (an image's index) with this private key, a PEM file (default: not signed)")
	cmd.Flags().StringVar(&opts.format, "format", string(oci.FormatImage), "what to write: image (an index of linux/amd64 and linux/arm64 images a runtime mounts) or artifact (the format of earlier releases)")
	return cmd
}

func runPush(ctx context.Context, opts *pushOptions) error {
	format := oci.Format(opts.format)
	if format != oci.FormatImage && format != oci.FormatArtifact {
		return usageErrorf("--format %q: want %s or %s", opts.format, oci.FormatImage, oci.FormatArtifact)
	}
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
		oci.WithFormat(format),
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
