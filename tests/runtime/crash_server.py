"""``CRASH_AT=POINT:N python -m tests.runtime.crash_server serve ARGS``: ``a2ui-runtime serve``
that kills itself with SIGKILL at POINT of the Nth turn it delivers.

A random SIGKILL lands in the window between commit and delivery only now and then; this lands
there every time, from inside a real server process. POINT is where, in ``Session.deliver``:

* ``audited``: the turn's audit events are written, none of its frames is sent;
* ``delivered``: every frame of the turn is sent (and given time to reach the client).
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from typing import Final

from runtime import cli
from runtime.serving.websocket.session import Session
from runtime.turns.context import RuntimeContext
from runtime.turns.outbox import Delivery

#: Long enough for a client on loopback to read frames the kernel already holds.
READ_GRACE_S: Final = 0.3


def crash() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def arm(point: str, nth: int) -> None:
    """Patch the session's delivery (and the audit it starts with) to crash at ``point``."""
    deliver, record_audit = Session.deliver, RuntimeContext.record_audit
    deliveries = 0

    async def crashing_deliver(self: Session, delivery: Delivery) -> None:
        nonlocal deliveries
        deliveries += 1
        await deliver(self, delivery)
        if point == "delivered" and deliveries == nth:
            await asyncio.sleep(0)  # the frames sent in this pass of the loop leave at its end
            time.sleep(READ_GRACE_S)
            crash()

    def crashing_record_audit(self: RuntimeContext, *args: object, **kwargs: object) -> None:
        record_audit(self, *args, **kwargs)  # type: ignore[arg-type]
        if point == "audited" and deliveries == nth:
            crash()

    Session.deliver = crashing_deliver  # type: ignore[method-assign]
    RuntimeContext.record_audit = crashing_record_audit  # type: ignore[method-assign]


if __name__ == "__main__":
    point, nth = os.environ["CRASH_AT"].split(":")
    arm(point, int(nth))
    sys.exit(cli.main(sys.argv[1:]))
