/**
 * The {@code muster} command-line client of the controller's Queues gRPC service: {@code queues} (List, or
 * Watch with {@code --watch}) and {@code gang NAMESPACE/NAME} (GetGang: state and reason).
 */
package dev.muster.demo.cli;
