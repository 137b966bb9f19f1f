# mirror_bot as a container image (Heroku's container stack via heroku.yml, or any Docker host).
#
# Build stage: the official Swift image on Ubuntu 24.04, with the headers of the C libraries mirror_bot links.
# Base images by digest (a tag is moved when the image is rebuilt); `script/update-pins` moves them on purpose.
FROM swift:6.3-noble@sha256:d40382aaafd5da4b1012abb8f7689f927f18a4797825d7daaf02dd641057a167 AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends libmecab-dev libhiredis-dev zlib1g-dev libsqlite3-dev libcbor-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /build
# The dependencies first, from the manifest and the committed lock alone (exactly the versions and revisions in
# deploy/package-pins.json, or the build fails): this layer is reused until either changes.
COPY Package.swift ./
COPY deploy/package-pins.json ./Package.resolved
RUN swift package --force-resolved-versions resolve
# Then the sources (the manifest names the test and benchmark targets too; .dockerignore leaves out .build).
COPY . .
# The Swift runtime is linked statically: the run stage needs no Swift toolchain. The backtracer comes along, so
# that a crash prints a symbolicated backtrace in the log.
RUN swift build --force-resolved-versions -c release --product mirror_bot --static-swift-stdlib \
 && install -D "$(swift build -c release --show-bin-path)/mirror_bot" /staging/usr/local/bin/mirror_bot \
 && install -D /usr/libexec/swift/linux/swift-backtrace-static /staging/usr/local/bin/swift-backtrace-static

# Run stage: Ubuntu 24.04 with only the run-time libraries: MeCab and its UTF-8 IPA dictionary, hiredis (TLS to
# Redis is mirror_bot's own), SQLite (word counts without Redis), zlib, CA certificates and time zones.
FROM ubuntu:24.04@sha256:008173c23f95b170204355c12626cb5a965d779a7e1283b09e9cffbb1bf33ca3
RUN apt-get update \
 && apt-get install -y --no-install-recommends libmecab2 mecab-ipadic-utf8 libhiredis1.1.0 libsqlite3-0 zlib1g libcbor0.10 libstdc++6 ca-certificates tzdata \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --create-home --uid 10001 mirror_bot
COPY --from=build /staging/ /
# A crash writes its backtrace (all threads, symbolicated) to standard error: the log.
# The status page (with PORT) listens on every address of the container: its port is what the host publishes.
ENV BIND=0.0.0.0
ENV SWIFT_BACKTRACE=enable=yes,sanitize=yes,threads=all,images=all,interactive=no,output-to=stderr,swift-backtrace=/usr/local/bin/swift-backtrace-static
USER mirror_bot
WORKDIR /home/mirror_bot
# A whole command rather than an ENTRYPOINT, so that Heroku's process and release commands (heroku.yml) and
# `docker run IMAGE mirror_bot train scheduler` are plain commands.
CMD ["mirror_bot", "start"]
