"""grpcio and protobuf, or a clear word on how to get them: the package needs both at
import time, and pip cannot always install them (no wheel for this Python, no network)."""

try:
    import google.protobuf  # type: ignore[import]  # noqa: F401
    import grpc
    import grpc.aio  # noqa: F401
except ImportError as e:  # pragma: no cover - depends on the interpreter
    raise ImportError(
        f"puzzledb needs grpcio and protobuf, and this Python ({__import__('sys').executable}) "
        f"has no {e.name or 'grpc'}: on Debian run /usr/bin/python3 with "
        "`apt-get install python3-grpcio python3-protobuf`, or install them into this "
        "interpreter with `pip install 'grpcio>=1.51' 'protobuf>=3.21'` "
        "(clients/python/README.md, \"Installing into another Python\")"
    ) from None

__all__ = ["grpc"]
