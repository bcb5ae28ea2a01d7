"""``python -m cv2.cudaimage``: the self-check to paste into a bug report (cv2.cudaimage.info says what
it prints and its exit status)."""
import sys

from cv2.cudaimage.info import main

sys.exit(main())
