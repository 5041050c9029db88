"""fd_recv.py send SOCK FILE N | recv SOCK - a descriptor passed over a
unix socket (SCM_RIGHTS). `send`, run unconfined, listens on SOCK and hands
each of N peers a descriptor of FILE opened for reading (60 s at most).
`recv`, run confined, connects, takes the descriptor and reads from it:
"ok" if bytes came back, "denied" if no descriptor arrived (an LSM's
file_receive hook dropped it), or the errno name of the step that failed.
The confined process opens nothing: only a hook on receiving the file can
refuse it (tests/vm/t_bypass.sh).
"""
import errno
import os
import socket
import sys


def send(path, file, n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(60)
    s.bind(path)
    s.listen(n)
    fd = os.open(file, os.O_RDONLY)
    for _ in range(n):
        c, _ = s.accept()
        socket.send_fds(c, [b"f"], [fd])
        c.close()
    return 0


def recv(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(path)
        _, fds, _, _ = socket.recv_fds(s, 16, 4)
        if not fds:
            print("denied")
            return 1
        os.read(fds[0], 16)
    except OSError as e:
        print(errno.errorcode.get(e.errno, "E?"))
        return 1
    print("ok")
    return 0


if sys.argv[1] == "send":
    sys.exit(send(sys.argv[2], sys.argv[3], int(sys.argv[4])))
sys.exit(recv(sys.argv[2]))
