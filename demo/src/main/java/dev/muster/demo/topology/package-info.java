/**
 * {@code muster-demo topology}: a topology scenario played on the scheduling core in simulated time, with and without
 * the gangs' topology requests on the same seed ({@link dev.muster.demo.topology.TopologySimulation}), and the text
 * report comparing racks spanned per gang and free whole racks over time ({@link dev.muster.demo.topology.TopologyReport}).
 * Single-threaded.
 */
package dev.muster.demo.topology;
