package admission_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/agentadaptor/agentadaptor/internal/testkit/testroot"
	"github.com/agentadaptor/agentadaptor/policy/admission"
)

// crd names the CRD a format's objects are checked against: the file of
// a module's release, as the project publishes it, and the version of
// the resource the objects are of.
type crd struct {
	module, version, file string
	group, kind, served   string
}

var crds = map[admission.Format]crd{
	admission.PolicyController: {
		module: "github.com/sigstore/policy-controller", version: "v0.13.1",
		file:  "config/300-clusterimagepolicy.yaml",
		group: "policy.sigstore.dev", kind: "ClusterImagePolicy", served: "v1beta1",
	},
	admission.Kyverno: {
		module: "github.com/kyverno/kyverno", version: "v1.19.1",
		file:  "config/crds/kyverno/kyverno.io_clusterpolicies.yaml",
		group: "kyverno.io", kind: "ClusterPolicy", served: "v1",
	},
}

// moduleDirs caches the folders of the modules downloaded.
var moduleDirs sync.Map

// moduleDir returns the folder of a module's release in the module
// cache, downloading it with the go command from a scratch folder (so
// that the module is not one of ours); a test that cannot is skipped,
// or fails under AGENTADAPTOR_REQUIRE_CLIS=1.
func moduleDir(t *testing.T, module, version string) string {
	t.Helper()
	key := module + "@" + version
	if d, ok := moduleDirs.Load(key); ok {
		return d.(string)
	}
	cmd := exec.CommandContext(t.Context(), "go", "mod", "download", "-json", key)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct{ Dir, Error string }
	if jerr := json.Unmarshal(out, &info); err == nil {
		err = jerr
	}
	if info.Error != "" { // the go command says why in the JSON
		err = errors.New(info.Error)
	}
	if err != nil {
		testroot.Missing(t, key, "the CRDs the objects are checked against: go mod download failed: "+strings.TrimSpace(err.Error()+" "+stderr.String()),
			"let the go command reach the module proxy (GOPROXY), or run `go mod download "+key+"` once where it can")
	}
	moduleDirs.Store(key, info.Dir)
	return info.Dir
}

// schemas caches the compiled schemas by CRD.
var schemas sync.Map

// crdSchema returns the JSON Schema of c's served version, made strict.
func crdSchema(t *testing.T, c crd) *jsonschema.Schema {
	t.Helper()
	if s, ok := schemas.Load(c); ok {
		return s.(*jsonschema.Schema)
	}
	data, err := os.ReadFile(filepath.Join(moduleDir(t, c.module, c.version), filepath.FromSlash(c.file)))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Spec struct {
			Group string
			Names struct{ Kind string }
			// Versions are decoded loosely: the schema is any.
			Versions []struct {
				Name       string
				Served     bool
				Deprecated bool
				Schema     struct {
					OpenAPIV3Schema map[string]any `yaml:"openAPIV3Schema"`
				}
			}
		}
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", c.file, err)
	}
	if doc.Spec.Group != c.group || doc.Spec.Names.Kind != c.kind {
		t.Fatalf("%s is the CRD of %s %s, want %s %s", c.file, doc.Spec.Group, doc.Spec.Names.Kind, c.group, c.kind)
	}
	for _, v := range doc.Spec.Versions {
		if v.Name != c.served {
			continue
		}
		if !v.Served {
			t.Fatalf("%s: version %s is not served", c.file, c.served)
		}
		if v.Deprecated {
			t.Logf("%s %s/%s is served deprecated (package doc says why it is written)", c.kind, c.group, c.served)
		}
		root := strict(v.Schema.OpenAPIV3Schema)
		root["required"] = []any{"apiVersion", "kind", "metadata", "spec"}
		props := root["properties"].(map[string]any)
		props["apiVersion"] = map[string]any{"const": c.group + "/" + c.served}
		props["kind"] = map[string]any{"const": c.kind}
		props["metadata"] = objectMeta()
		comp := jsonschema.NewCompiler()
		if err := comp.AddResource("crd.json", toJSON(t, root)); err != nil {
			t.Fatal(err)
		}
		s, err := comp.Compile("crd.json")
		if err != nil {
			t.Fatalf("compiling the schema of %s: %v", c.file, err)
		}
		schemas.Store(c, s)
		return s
	}
	t.Fatalf("%s has no version %s", c.file, c.served)
	return nil
}

// strict returns an OpenAPI v3 schema of a CRD as a JSON Schema that
// refuses what the API server would prune or refuse: every object
// schema closed (no field it does not name) unless it keeps unknown
// fields (x-kubernetes-preserve-unknown-fields) or says what its other
// fields are (additionalProperties); nullable as a type that admits
// null; an int-or-string as either.
func strict(node any) map[string]any {
	var walk func(any) any
	walk = func(n any) any {
		switch v := n.(type) {
		case map[string]any:
			out := map[string]any{}
			for k, c := range v {
				switch k {
				case "properties", "patternProperties", "definitions", "$defs":
					m := map[string]any{}
					for name, s := range c.(map[string]any) {
						m[name] = walk(s)
					}
					out[k] = m
				case "items", "additionalProperties", "not":
					out[k] = walk(c)
				case "allOf", "anyOf", "oneOf":
					var l []any
					for _, s := range c.([]any) {
						l = append(l, walk(s))
					}
					out[k] = l
				default:
					out[k] = c
				}
			}
			if out["nullable"] == true {
				if t, ok := out["type"].(string); ok {
					out["type"] = []any{t, "null"}
				}
			}
			if out["x-kubernetes-int-or-string"] == true {
				out["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
			}
			if out["x-kubernetes-embedded-resource"] == true {
				props, _ := out["properties"].(map[string]any)
				if props == nil {
					props = map[string]any{}
				}
				props["apiVersion"] = map[string]any{"type": "string"}
				props["kind"] = map[string]any{"type": "string"}
				props["metadata"] = map[string]any{"type": "object"}
				out["properties"] = props
			}
			_, open := out["additionalProperties"]
			if out["type"] == "object" && !open && out["x-kubernetes-preserve-unknown-fields"] != true {
				out["additionalProperties"] = false
			}
			return out
		}
		return n
	}
	return walk(node).(map[string]any)
}

// objectMeta is the part of a Kubernetes object's metadata the
// exported objects may set: a DNS subdomain name and annotations with
// qualified names.
func objectMeta() map[string]any {
	const label = `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
	const qualified = `^(` + label + `(\.` + label + `)*/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$`
	return map[string]any{
		"type":     "object",
		"required": []any{"name"},
		"properties": map[string]any{
			"name": map[string]any{"type": "string", "maxLength": 253, "pattern": `^` + label + `(\.` + label + `)*$`},
			"annotations": map[string]any{
				"type":                 "object",
				"propertyNames":        map[string]any{"pattern": qualified},
				"additionalProperties": map[string]any{"type": "string"},
			},
		},
		"additionalProperties": false,
	}
}

// toJSON returns v as the JSON a schema validator reads.
func toJSON(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// documents decodes YAML documents strictly: each one mapping, no
// duplicate key.
func documents(t *testing.T, data []byte) []map[string]any {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []map[string]any
	for {
		var doc map[string]any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("decoding the YAML: %v", err)
		}
		out = append(out, doc)
	}
}

// Rule 8: every object decodes strictly against the CRD its project
// publishes, at a pinned release: no field the CRD does not name, every
// value of the type it says.
func TestCRDSchemas(t *testing.T) {
	p := loadPolicy(t, "policy.yaml")
	for _, f := range admission.Formats() {
		t.Run(string(f), func(t *testing.T) {
			e, err := admission.Policies(p, f)
			if err != nil {
				t.Fatal(err)
			}
			s := crdSchema(t, crds[f])
			docs := documents(t, e.YAML)
			if len(docs) == 0 {
				t.Fatal("no object")
			}
			for i, d := range docs {
				if err := s.Validate(toJSON(t, d)); err != nil {
					t.Errorf("object %d does not decode strictly against %s@%s %s: %v", i+1, crds[f].module, crds[f].version, crds[f].file, err)
				}
			}
		})
	}
}

// The check of TestCRDSchemas can fail: an object with a field the CRD
// does not name, or a value of another type, is refused.
func TestCRDSchemasRefuse(t *testing.T) {
	p := loadPolicy(t, "policy.yaml")
	for _, tt := range []struct {
		name   string
		format admission.Format
		mutate func(map[string]any)
	}{
		{"unknown field of an authority", admission.PolicyController, func(o map[string]any) {
			spec(o, "authorities").([]any)[0].(map[string]any)["keyles"] = map[string]any{}
		}},
		{"unknown field of an identity", admission.PolicyController, func(o map[string]any) {
			auth := spec(o, "authorities").([]any)[0].(map[string]any)
			auth["keyless"].(map[string]any)["identities"].([]any)[0].(map[string]any)["subjectRegex"] = "x"
		}},
		{"glob not a string", admission.PolicyController, func(o map[string]any) {
			spec(o, "images").([]any)[0].(map[string]any)["glob"] = 5
		}},
		{"unknown field of the spec", admission.PolicyController, func(o map[string]any) {
			o["spec"].(map[string]any)["signers"] = []any{}
		}},
		{"wrong apiVersion", admission.PolicyController, func(o map[string]any) { o["apiVersion"] = "policy.sigstore.dev/v1" }},
		{"unknown field of a verifyImages rule", admission.Kyverno, func(o map[string]any) {
			verifyImage(o)["imageReference"] = []any{"x"}
		}},
		{"count not an integer", admission.Kyverno, func(o map[string]any) {
			verifyImage(o)["attestors"].([]any)[0].(map[string]any)["count"] = "1"
		}},
		{"type not one of the enum", admission.Kyverno, func(o map[string]any) { verifyImage(o)["type"] = "Bundle" }},
		{"unknown field of a key", admission.Kyverno, func(o map[string]any) {
			entry := verifyImage(o)["attestors"].([]any)[0].(map[string]any)["entries"].([]any)[0].(map[string]any)
			entry["keys"].(map[string]any)["publicKey"] = "x"
		}},
		{"image extractor without its path", admission.Kyverno, func(o map[string]any) {
			rule := spec(o, "rules").([]any)[0].(map[string]any)
			delete(rule["imageExtractors"].(map[string]any)["Pod"].([]any)[0].(map[string]any), "path")
		}},
		{"unknown metadata", admission.Kyverno, func(o map[string]any) { o["metadata"].(map[string]any)["label"] = "x" }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e, err := admission.Policies(p, tt.format)
			if err != nil {
				t.Fatal(err)
			}
			s := crdSchema(t, crds[tt.format])
			o := documents(t, e.YAML)[0]
			if err := s.Validate(toJSON(t, o)); err != nil {
				t.Fatalf("before the change: %v", err)
			}
			tt.mutate(o)
			if err := s.Validate(toJSON(t, o)); err == nil {
				t.Errorf("Validate(object with %s) = nil, want refused", tt.name)
			}
		})
	}
}

// spec returns a field of an object's spec.
func spec(o map[string]any, field string) any { return o["spec"].(map[string]any)[field] }

// verifyImage returns the first verifyImages entry of a ClusterPolicy.
func verifyImage(o map[string]any) map[string]any {
	rule := spec(o, "rules").([]any)[0].(map[string]any)
	return rule["verifyImages"].([]any)[0].(map[string]any)
}
