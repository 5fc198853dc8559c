import sys

from dpaudit.cli import main
from dpaudit.runtime.limits import process_start

sys.exit(main(started=process_start()))
