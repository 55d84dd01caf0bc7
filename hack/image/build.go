/*
Copyright 2026 The csi-resizer Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"encoding/json"
	"fmt"
	"time"
)

// Build makes the image of spec. It is a pure function of spec: files
// are sorted, owned by numeric ids without names, dated spec.Created, and
// gzip's header has no name and no time.
func Build(spec Spec) (*Image, error) {
	if err := check(spec); err != nil {
		return nil, err
	}
	created := spec.Created.UTC().Truncate(time.Second)
	layers, err := makeLayers(spec, created)
	if err != nil {
		return nil, err
	}
	img := &Image{Blobs: map[string][]byte{}}
	stamp := created.Format(time.RFC3339)
	for i, b := range spec.Binaries {
		d, err := img.addManifest(spec, b, layers[0], layers[i+1], stamp)
		if err != nil {
			return nil, err
		}
		img.Manifests = append(img.Manifests, d)
	}
	return img, img.addIndex(spec, stamp)
}

// check refuses a spec that cannot make an image.
func check(spec Spec) error {
	if len(spec.Binaries) == 0 {
		return fmt.Errorf("no binaries")
	}
	if spec.Name == "" {
		return fmt.Errorf("no image name")
	}
	seen := map[Platform]bool{}
	for _, b := range spec.Binaries {
		if seen[b.Platform] {
			return fmt.Errorf("platform %s given twice", b.Platform)
		}
		seen[b.Platform] = true
	}
	return nil
}

// add stores data as a blob of mediaType and returns its descriptor.
func (img *Image) add(mediaType string, data []byte) Descriptor {
	d := digest(data)
	img.Blobs[d] = data
	return Descriptor{MediaType: mediaType, Digest: d, Size: int64(len(data))}
}

// addJSON stores v, encoded, as a blob of mediaType.
func (img *Image) addJSON(mediaType string, v any) (Descriptor, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return Descriptor{}, err
	}
	return img.add(mediaType, data), nil
}

// addManifest stores the config and manifest of binary b, made of the base
// layer and the binary's, and returns the manifest's descriptor.
func (img *Image) addManifest(spec Spec, b Binary, base, bin layer, stamp string) (Descriptor, error) {
	cfg := config{
		Created:      stamp,
		Architecture: b.Platform.Arch,
		Variant:      b.Platform.Variant,
		OS:           b.Platform.OS,
		Config: runConfig{
			User:       user,
			Entrypoint: []string{binaryPath},
			WorkingDir: "/",
			Labels: map[string]string{
				labelSource:      spec.Source,
				labelRevision:    spec.Revision,
				labelVersion:     spec.Version,
				labelLicenses:    licenses,
				labelTitle:       title,
				labelDescription: description,
				labelCreated:     stamp,
			},
		},
		RootFS: rootFS{Type: "layers", DiffIDs: []string{base.diffID, bin.diffID}},
		History: []history{
			{Created: stamp, CreatedBy: "hack/image: /etc/passwd, /etc/group, /etc/nsswitch.conf, /root, /home/nonroot, /tmp", Comment: "what the resizer needs of distroless/static"},
			{Created: stamp, CreatedBy: "hack/image: " + binaryPath, Comment: "make build for " + b.Platform.String()},
		},
	}
	cfgDesc, err := img.addJSON(mediaTypeConfig, cfg)
	if err != nil {
		return Descriptor{}, err
	}
	d, err := img.addJSON(mediaTypeManifest, manifest{
		SchemaVersion: 2,
		MediaType:     mediaTypeManifest,
		Config:        cfgDesc,
		Layers:        []Descriptor{img.add(mediaTypeLayer, base.blob), img.add(mediaTypeLayer, bin.blob)},
	})
	p := b.Platform
	d.Platform = &p
	return d, err
}

// addIndex stores the image index of the manifests, and points index.json
// at it under the image's name. The image index is a blob, so that its
// digest is the one a registry reports once it is pushed as is (skopeo
// copy --all, crane push --index).
func (img *Image) addIndex(spec Spec, stamp string) error {
	var err error
	img.Index, err = img.addJSON(mediaTypeIndex, index{SchemaVersion: 2, MediaType: mediaTypeIndex, Manifests: img.Manifests,
		Annotations: map[string]string{labelSource: spec.Source, labelRevision: spec.Revision, labelVersion: spec.Version, labelCreated: stamp}})
	if err != nil {
		return err
	}
	top := img.Index
	top.Annotations = map[string]string{annotationRefName: spec.Name, annotationContainerdRef: spec.Name}
	img.IndexJSON, err = json.Marshal(index{SchemaVersion: 2, MediaType: mediaTypeIndex, Manifests: []Descriptor{top}})
	return err
}
