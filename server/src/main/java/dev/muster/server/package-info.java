/**
 * The extender process: {@link dev.muster.server.ExtenderProcess} assembles the core and its adapters;
 * {@link dev.muster.server.ServerMain} wires it to Kubernetes (cluster sync, binder, Lease election).
 */
package dev.muster.server;
