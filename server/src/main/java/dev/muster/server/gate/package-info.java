/**
 * Lifting Muster's queue-admission scheduling gate from pods ({@link dev.muster.server.gate.KubeGateLifter}) and its
 * metrics ({@link dev.muster.server.gate.GateCollector}).
 */
package dev.muster.server.gate;
