// What Glibc's Swift module does not show without _GNU_SOURCE. No system header here, so that this module and
// Glibc's never define the same types twice.
#ifndef CLODESTONE_SOCKETS_H
#define CLODESTONE_SOCKETS_H

/// SO_PEERCRED of a connected Unix socket: 0 with the peer's pid, uid and gid, or -1 (errno set).
int lodestone_peer_credentials(int fd, int *pid, unsigned int *uid, unsigned int *gid);

/// accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC): the new descriptor, or -1 (errno set).
int lodestone_accept_nonblocking(int fd);

#endif
