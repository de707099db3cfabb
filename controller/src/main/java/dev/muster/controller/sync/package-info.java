/**
 * What the controller observes of the cluster: {@link dev.muster.controller.sync.ClusterObserver} is the port
 * that informer adapters call with Queues, PodGroups (spec and the status the API shows) and member pods. It
 * feeds the fold and, from observed status, what the writer knows the API already holds — so that a new leader
 * skips objects whose status is already right.
 */
package dev.muster.controller.sync;
