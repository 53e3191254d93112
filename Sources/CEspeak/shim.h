// libespeak-ng, through pkg-config `espeak-ng` (Debian: libespeak-ng-dev).
#include <espeak-ng/speak_lib.h>
