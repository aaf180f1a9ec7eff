// Package kubetest reads what package kube writes as Kubernetes reads
// it: each YAML document is decoded strictly into the official Go type of
// its apiVersion and kind (k8s.io/api's batch/v1 Job, agent-sandbox's
// v1beta1 SandboxTemplate, SandboxWarmPool and SandboxClaim), a field
// those types do not have, a duplicate key, or a value of another type
// failing the test; and each must survive a round trip (decode, encode,
// decode, encode: the same bytes), with every value written found again
// in the official encoding.
//
// Only tests import it: the official types are test dependencies, never
// linked by agentskills.
package kubetest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	extv1beta1 "sigs.k8s.io/agent-sandbox/extensions/api/v1beta1"
	"sigs.k8s.io/yaml"
)

// Decode decodes the YAML documents of data, each into the official type
// its apiVersion and kind name: *batchv1.Job, *extv1beta1.SandboxTemplate,
// *extv1beta1.SandboxWarmPool or *extv1beta1.SandboxClaim.
func Decode(data []byte) ([]any, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []any
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		obj, err := decodeOne(doc)
		if err != nil {
			return nil, fmt.Errorf("document %d: %w", len(objs)+1, err)
		}
		objs = append(objs, obj)
	}
	if len(objs) == 0 {
		return nil, errors.New("no document")
	}
	return objs, nil
}

// newObject returns a new value of the official type of apiVersion and
// kind.
func newObject(apiVersion, kind string) (any, error) {
	switch apiVersion + " " + kind {
	case "batch/v1 Job":
		return &batchv1.Job{}, nil
	case extv1beta1.GroupVersion.String() + " " + extv1beta1.SandboxTemplateKind:
		return &extv1beta1.SandboxTemplate{}, nil
	case extv1beta1.GroupVersion.String() + " " + extv1beta1.SandboxWarmPoolKind:
		return &extv1beta1.SandboxWarmPool{}, nil
	case extv1beta1.GroupVersion.String() + " " + extv1beta1.SandboxClaimKind:
		return &extv1beta1.SandboxClaim{}, nil
	}
	return nil, fmt.Errorf("apiVersion %q, kind %q: not an object this package knows", apiVersion, kind)
}

func decodeOne(doc []byte) (any, error) {
	js, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return nil, err
	}
	var head struct{ APIVersion, Kind string }
	if err := json.Unmarshal(js, &head); err != nil {
		return nil, err
	}
	obj, err := newObject(head.APIVersion, head.Kind)
	if err != nil {
		return nil, err
	}
	if err := strict(js, obj); err != nil {
		return nil, fmt.Errorf("%s: %w", head.Kind, err)
	}
	// The round trip: what the official type encodes decodes again to
	// the same encoding, and holds every value written.
	enc, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	again := reflect.New(reflect.TypeOf(obj).Elem()).Interface()
	if err := strict(enc, again); err != nil {
		return nil, fmt.Errorf("%s: its own encoding: %w", head.Kind, err)
	}
	enc2, err := json.Marshal(again)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(enc, enc2) {
		return nil, fmt.Errorf("%s: the round trip changed it:\n%s\n%s", head.Kind, enc, enc2)
	}
	var written, official any
	if err := json.Unmarshal(js, &written); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(enc, &official); err != nil {
		return nil, err
	}
	if path := missing(written, official, ""); path != "" {
		return nil, fmt.Errorf("%s: %s was written but the official type does not keep it: %s", head.Kind, path, enc)
	}
	return obj, nil
}

// strict decodes the JSON js into obj, refusing unknown fields and
// anything after the object.
func strict(js []byte, obj any) error {
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(obj); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the object")
	}
	return nil
}

// missing returns the path of the first value of written that official
// does not hold equal, "" when it holds them all.
func missing(written, official any, path string) string {
	switch w := written.(type) {
	case map[string]any:
		o, ok := official.(map[string]any)
		if !ok {
			return path
		}
		for k, v := range w {
			if p := missing(v, o[k], path+"."+k); p != "" {
				return p
			}
		}
		return ""
	case []any:
		o, ok := official.([]any)
		if !ok || len(o) != len(w) {
			return path
		}
		for i := range w {
			if p := missing(w[i], o[i], fmt.Sprintf("%s[%d]", path, i)); p != "" {
				return p
			}
		}
		return ""
	}
	if !reflect.DeepEqual(written, official) {
		return path
	}
	return ""
}

// Expand expands s as the kubelet expands a container's command and
// arguments (the Kubernetes API reference, Container.args): $$ is $,
// $(VAR) is env[VAR] when VAR is defined and is left as written when it
// is not, and any other $ is left as written, as is a $( without its
// closing parenthesis.
func Expand(s string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
		case '(':
			end := strings.IndexByte(s[i+2:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			name := s[i+2 : i+2+end]
			if v, ok := env[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString("$(" + name + ")")
			}
			i += 2 + end
		default:
			b.WriteByte('$')
		}
	}
	return b.String()
}
