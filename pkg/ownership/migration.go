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

package ownership

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// CSI driver names that CSI migration gives the in-tree volume plugins, as in
// k8s.io/csi-translation-lib.
const (
	awsEBSDriver    = "ebs.csi.aws.com"
	gcePDDriver     = "pd.csi.storage.gke.io"
	azureDiskDriver = "disk.csi.azure.com"
	cinderDriver    = "cinder.csi.openstack.org"
	portworxDriver  = "pxd.portworx.com"
)

// GCE PD handle parts, as the GCE PD CSI driver parses them. The project is not known from an
// in-tree PV; the driver accepts UNSPECIFIED and uses its own.
const (
	gceUnspecified    = "UNSPECIFIED"
	gceZonalHandle    = "projects/%s/zones/%s/disks/%s"
	gceRegionalHandle = "projects/%s/regions/%s/disks/%s"
	gceZoneDelimiter  = "__" // separates the zones of a regional disk in the zone label
)

// EBS volume ID forms: the in-tree provisioner wrote aws://<zone>/vol-..., users wrote vol-....
const (
	ebsURLScheme      = "aws://"
	ebsVolumeIDPrefix = "vol-"
)

// Source returns the CSI view of pv, to call the driver with the handle it knows: a copy of
// pv.Spec.CSI, or for an in-tree volume the source CSI migration would give it (Driver,
// VolumeHandle, FSType, ReadOnly). In-tree plugins whose translation is not exactly known here
// (vsphereVolume, azureFile, those without a CSI driver) and empty handles give an error rather
// than a guessed handle, so that no volume is ever resized under a wrong identity.
func Source(pv *v1.PersistentVolume) (*v1.CSIPersistentVolumeSource, error) {
	if pv == nil {
		return nil, errors.New("no PersistentVolume given")
	}
	s := &pv.Spec.PersistentVolumeSource
	var (
		src *v1.CSIPersistentVolumeSource
		err error
	)
	switch {
	case s.CSI != nil:
		if s.CSI.VolumeHandle == "" {
			return nil, fmt.Errorf("PersistentVolume %q: CSI volume of driver %q has an empty volumeHandle", pv.Name, s.CSI.Driver)
		}
		return s.CSI.DeepCopy(), nil
	case s.AWSElasticBlockStore != nil:
		src, err = fromAWSEBS(s.AWSElasticBlockStore)
	case s.GCEPersistentDisk != nil:
		src, err = fromGCEPD(s.GCEPersistentDisk, pv.Labels)
	case s.AzureDisk != nil:
		src = fromAzureDisk(s.AzureDisk)
	case s.Cinder != nil:
		src = &v1.CSIPersistentVolumeSource{Driver: cinderDriver, VolumeHandle: s.Cinder.VolumeID, FSType: s.Cinder.FSType, ReadOnly: s.Cinder.ReadOnly}
	case s.PortworxVolume != nil:
		src = &v1.CSIPersistentVolumeSource{Driver: portworxDriver, VolumeHandle: s.PortworxVolume.VolumeID, FSType: s.PortworxVolume.FSType, ReadOnly: s.PortworxVolume.ReadOnly}
	case s.VsphereVolume != nil:
		return nil, fmt.Errorf("PersistentVolume %q: in-tree vsphereVolume is not translated to CSI by this resizer", pv.Name)
	case s.AzureFile != nil:
		return nil, fmt.Errorf("PersistentVolume %q: in-tree azureFile is not translated to CSI by this resizer", pv.Name)
	default:
		return nil, fmt.Errorf("PersistentVolume %q is neither a CSI volume nor an in-tree volume that CSI migration covers", pv.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("PersistentVolume %q: translate in-tree volume to CSI: %w", pv.Name, err)
	}
	if src.VolumeHandle == "" {
		return nil, fmt.Errorf("PersistentVolume %q: in-tree volume for CSI driver %q has an empty volume ID", pv.Name, src.Driver)
	}
	return src, nil
}

// fromAWSEBS translates an in-tree EBS volume. Its volumeID is either a bare EBS id
// (vol-0123...) or the URL form aws://<zone>/<id> the in-tree provisioner wrote; the EBS CSI
// driver wants the bare id.
func fromAWSEBS(ebs *v1.AWSElasticBlockStoreVolumeSource) (*v1.CSIPersistentVolumeSource, error) {
	id := ebs.VolumeID
	if strings.HasPrefix(id, ebsURLScheme) {
		u, err := url.Parse(id)
		if err != nil {
			return nil, fmt.Errorf("awsElasticBlockStore volumeID %q: %w", id, err)
		}
		id = strings.Trim(u.Path, "/")
		if !strings.HasPrefix(id, ebsVolumeIDPrefix) || strings.Contains(id, "/") {
			return nil, fmt.Errorf("awsElasticBlockStore volumeID %q does not end in an EBS volume id (%s...)", ebs.VolumeID, ebsVolumeIDPrefix)
		}
	}
	return &v1.CSIPersistentVolumeSource{Driver: awsEBSDriver, VolumeHandle: id, FSType: ebs.FSType, ReadOnly: ebs.ReadOnly}, nil
}

// fromGCEPD translates an in-tree GCE PD. The handle names the zone, or the region for a
// regional disk, which the in-tree PV keeps only in its zone label (several zones joined by
// "__" for a regional disk). The beta label is read first, as the translation library does,
// because it is the one older in-tree provisioners wrote.
func fromGCEPD(pd *v1.GCEPersistentDiskVolumeSource, labels map[string]string) (*v1.CSIPersistentVolumeSource, error) {
	if pd.PDName == "" {
		return nil, errors.New("gcePersistentDisk has an empty pdName")
	}
	zoneLabel := labels[v1.LabelFailureDomainBetaZone]
	if zoneLabel == "" {
		zoneLabel = labels[v1.LabelTopologyZone]
	}
	var handle string
	switch zones := strings.Split(zoneLabel, gceZoneDelimiter); {
	case zoneLabel == "":
		handle = fmt.Sprintf(gceZonalHandle, gceUnspecified, gceUnspecified, pd.PDName)
	case len(zones) == 1:
		handle = fmt.Sprintf(gceZonalHandle, gceUnspecified, zones[0], pd.PDName)
	default:
		region, err := gceRegion(zones)
		if err != nil {
			return nil, err
		}
		handle = fmt.Sprintf(gceRegionalHandle, gceUnspecified, region, pd.PDName)
	}
	return &v1.CSIPersistentVolumeSource{Driver: gcePDDriver, VolumeHandle: handle, FSType: pd.FSType, ReadOnly: pd.ReadOnly}, nil
}

// gceRegion returns the region of the zones of a regional disk: a GCE zone is
// <region>-<letter>, and all zones of one disk lie in one region.
func gceRegion(zones []string) (string, error) {
	region := ""
	for _, z := range zones {
		i := strings.LastIndex(z, "-")
		if i <= 0 {
			return "", fmt.Errorf("gcePersistentDisk zone %q in the zone label is not of the form <region>-<zone>", z)
		}
		switch r := z[:i]; {
		case region == "":
			region = r
		case r != region:
			return "", fmt.Errorf("gcePersistentDisk zones %q span more than one region", strings.Join(zones, gceZoneDelimiter))
		}
	}
	return region, nil
}

// fromAzureDisk translates an in-tree Azure disk: the Azure Disk CSI driver takes the disk's
// resource URI as its handle.
func fromAzureDisk(d *v1.AzureDiskVolumeSource) *v1.CSIPersistentVolumeSource {
	src := &v1.CSIPersistentVolumeSource{Driver: azureDiskDriver, VolumeHandle: d.DataDiskURI}
	if d.FSType != nil {
		src.FSType = *d.FSType
	}
	if d.ReadOnly != nil {
		src.ReadOnly = *d.ReadOnly
	}
	return src
}
