# Copyright 2026 The csi-resizer Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# The builder runs on the build machine's platform and cross-compiles, so a
# multi-platform build does not emulate the compiler. Its Go is the
# toolchain the Makefile names (GOTOOLCHAIN), so make build uses it as is.
FROM --platform=$BUILDPLATFORM golang:1.27.3 AS builder
ARG TARGETOS
ARG TARGETARCH
ARG VERSION=unknown
WORKDIR /src
COPY . .
# `make build` itself, so the image holds the very binary the end-to-end
# suite tests. The version comes from VERSION, not from .git, which the
# build context leaves out (.dockerignore).
RUN GOOS=${TARGETOS} GOARCH=${TARGETARCH} make build VERSION=${VERSION} && \
    mkdir -p /out && cp bin/csi-resizer /out/csi-resizer

# `make image` builds an image of the same binary without Docker and without
# this base (hack/image writes the few files of it the resizer needs), for
# amd64 and arm64, with the same user, entrypoint and labels.
#
# The base is upstream's, distroless/static's root variant, and the user
# root ("0", as that base and hack/image say it): a CSI driver running as
# root creates its socket srwxr-xr-x root, and only root may connect to it,
# so an image of another user could not replace upstream's. To run as
# distroless' nonroot (65532), which /etc/passwd names, set runAsUser where
# the driver's socket allows it (the chart's README says how).
FROM gcr.io/distroless/static:latest
ARG VERSION=unknown
ARG REVISION=unknown
LABEL org.opencontainers.image.source="https://github.com/csi-resizer/csi-resizer" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.title="csi-resizer" \
      org.opencontainers.image.description="CSI external-resizer sidecar"
COPY --from=builder /out/csi-resizer /csi-resizer
USER 0
ENTRYPOINT ["/csi-resizer"]
