package oci

import ocispec "github.com/opencontainers/image-spec/specs-go/v1"

// platformManifest returns the linux/amd64 manifest of an index whose
// manifests (more than one) each name a platform, as an image [Push]
// writes does (rule 1 of What Fetch reads).
func platformManifest(found []ocispec.Descriptor) (ocispec.Descriptor, bool) {
	if len(found) < 2 {
		return ocispec.Descriptor{}, false
	}
	var amd64 []ocispec.Descriptor
	for _, d := range found {
		if d.Platform == nil {
			return ocispec.Descriptor{}, false
		}
		if d.Platform.OS == "linux" && d.Platform.Architecture == "amd64" && d.Platform.Variant == "" {
			amd64 = append(amd64, d)
		}
	}
	if len(amd64) != 1 {
		return ocispec.Descriptor{}, false
	}
	return amd64[0], true
}
