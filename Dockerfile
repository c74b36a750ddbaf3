# toolstream in a container: a static binary on a distroless base, run as
# an unprivileged user.
#
#   docker build -t toolstream .
#   docker run -p 8080:8080 -e TOOLSTREAM_KEY=… -e OPENAI_API_KEY=… \
#     -v toolstream-data:/var/lib/toolstream toolstream
#
# Mount your own config over /etc/toolstream (it must be at
# /etc/toolstream/toolstream.yaml); the shipped one is deploy/toolstream.yaml.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# badger is pure Go: no cgo, so the binary runs on an image without libc.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/usr/local/bin/toolstream ./cmd/toolstream
RUN install -D -m 0644 deploy/toolstream.yaml /out/etc/toolstream/toolstream.yaml \
	&& install -d -m 0700 /out/var/lib/toolstream

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/usr/local/bin/toolstream /usr/local/bin/toolstream
# 65532 is distroless's "nonroot": the volumes must be its to write.
COPY --from=build --chown=65532:65532 /out/etc/toolstream /etc/toolstream
COPY --from=build --chown=65532:65532 /out/var/lib/toolstream /var/lib/toolstream
USER 65532:65532
ENV TOOLSTREAM_CONFIG=/etc/toolstream/toolstream.yaml \
	TOOLSTREAM_LISTEN=0.0.0.0:8080
VOLUME ["/etc/toolstream", "/var/lib/toolstream"]
EXPOSE 8080
# No shell or curl in the image: the binary probes its own /healthz.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
	CMD ["/usr/local/bin/toolstream", "health"]
# docker stop sends SIGTERM: open streams get shutdown_grace (30s) to
# finish; give `docker stop -t` / stop_grace_period more than that.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/toolstream", "serve"]
