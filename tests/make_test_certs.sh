#!/bin/sh
# Makes the certificates the TLS tests use, in the folder given: a CA, a server
# certificate for 127.0.0.1 / localhost signed by it, a client certificate signed by it,
# and a second CA that signed nothing the server has.
set -eu
dir=$1
mkdir -p "$dir"
cd "$dir"
quiet() { "$@" >/dev/null 2>&1; }
quiet openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=puzzledb test CA" \
  -keyout ca.key -out ca.pem
quiet openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=someone else's CA" \
  -keyout other_ca.key -out other_ca.pem
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > server.ext
quiet openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr
quiet openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
  -extfile server.ext -out server.pem
quiet openssl req -newkey rsa:2048 -nodes -subj "/CN=puzzledb test client" -keyout client.key \
  -out client.csr
quiet openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
  -out client.pem
test -s server.pem && test -s client.pem
