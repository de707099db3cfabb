/**
 * TLS from the PEM files Kubernetes Secrets hold, for both processes' servers and clients: {@link
 * dev.muster.common.tls.PemTls} reads certificates and keys (PKCS#8, PKCS#1 and SEC1, as Helm, cert-manager and OpenSSL write them),
 * {@link dev.muster.common.tls.CertificateFiles} serves them to the JDK's TLS (the HTTP verbs) and to gRPC, reading the
 * files again when they change, so a renewed certificate or CA needs no restart.
 *
 * <p>Owns no state beyond each {@code CertificateFiles}' last loaded material (documented there).
 */
package dev.muster.common.tls;
