/**
 * Queue admission: open state and capability as a hard ceiling on what a queue holds plus a gang's request.
 */
package dev.muster.core.queue;
