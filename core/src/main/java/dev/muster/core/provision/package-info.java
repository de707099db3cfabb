/**
 * All-or-nothing scale-up: a gang its queue admits, that does not fit the nodes' free room and that preemption would
 * not place, asks a cluster autoscaler for all of its pods' room at once (cluster-autoscaler's ProvisioningRequest, the
 * atomic class) and stays behind Muster's scheduling gate until the room is provisioned.
 * {@link dev.muster.core.provision.Provisioning} owns each gang's request (its state machine, under its own lock);
 * {@link dev.muster.core.provision.ProvisionHold} is the {@link dev.muster.core.gang.GateHold} the gate's lift asks
 * (under the core's lock), judging room with {@link dev.muster.core.provision.ClusterRoom}. Plain Java: the Kubernetes
 * side (the requests, their PodTemplates and their informer) lives in the server.
 */
package dev.muster.core.provision;
