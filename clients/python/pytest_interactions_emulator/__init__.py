"""pytest-interactions-emulator: fixtures that start the local Gemini Interactions API emulator.

The fixtures (`interactions_emulator`, `interactions_api_key`, `interactions_client`) come from the
plugin module, loaded by pytest through the `pytest11` entry point; `start_emulator()` is the same
without pytest."""

from .cleanup import count_instance_objects, remove_instance_objects
from .emulator import EmulatorError, InteractionsEmulator, new_api_key, start_emulator

__all__ = [
    "EmulatorError",
    "InteractionsEmulator",
    "count_instance_objects",
    "new_api_key",
    "remove_instance_objects",
    "start_emulator",
]
