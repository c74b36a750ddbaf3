#!/bin/sh
# Runs toolstream side by side with nginx and with no proxy at all, on
# loopback, and prints the table the README shows:
#
#   sh cmd/toolstream-bench/compare.sh [compare flags, e.g. -repeats 5]
#
# nginx is installed from the Debian packages when it is missing (as root,
# or through sudo). The target is pinned to CPU 0 and the scripted upstream
# and load generator to CPU 1 when taskset is there.
set -eu
cd "$(dirname "$0")/../.."

nginx=$(command -v nginx || true)
[ -n "$nginx" ] || [ ! -x /usr/sbin/nginx ] || nginx=/usr/sbin/nginx
if [ -z "$nginx" ]; then
	echo "installing nginx from the Debian packages …" >&2
	sudo=""
	[ "$(id -u)" = 0 ] || sudo=sudo
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx >&2 ||
		{ $sudo apt-get update >&2 && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nginx >&2; }
	nginx=/usr/sbin/nginx
fi
exec go run ./cmd/toolstream-bench compare -nginx "$nginx" "$@"
