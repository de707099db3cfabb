/**
 * A client that calls an extender exactly as kube-scheduler does (serial filter and prioritize, async
 * bind), used by the loopback tests, the demo and the HTTP benchmark.
 */
package dev.muster.testsupport.extender;
