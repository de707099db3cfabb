/**
 * The core's view of Kubernetes objects: pods, nodes, PodGroups (gangs), Queues, and the Volcano annotations that make a pod a gang member. Immutable records, free of any client library.
 */
package dev.muster.core.model;
