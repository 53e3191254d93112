// libxml2's reader (xmlreader.h), opened at run time.
//
// Linking libxml2 (Foundation's XMLParser does) loads it, ICU's common library and its data,
// zlib and liblzma into every command: about 1 ms of start-up, when only reading a .zwo
// workout or a TCX activity needs it. `intervalpro_xml_open` dlopens it on the first read.
// The reader's API is functions on an opaque pointer, so the few used are declared here by
// their signatures in xmlreader.h and tree.h, and no headers are needed to build.
#include <dlfcn.h>
#include <stddef.h>

// xmlReaderTypes and xmlParserOption values used (xmlreader.h, parser.h).
enum {
    INTERVALPRO_XML_ELEMENT = 1,
    INTERVALPRO_XML_TEXT = 3,
    INTERVALPRO_XML_CDATA = 4,
    INTERVALPRO_XML_SIGNIFICANT_WHITESPACE = 14,
    INTERVALPRO_XML_END_ELEMENT = 15,
    // XML_PARSE_NONET: never fetch anything named in the document.
    INTERVALPRO_XML_PARSE_NONET = 1 << 11,
    // XML_PARSE_NOWARNING: warnings are not errors and need not be reported.
    INTERVALPRO_XML_PARSE_NOWARNING = 1 << 6,
};

// xmlTextReaderErrorFunc, with xmlParserSeverities as int.
typedef void (*intervalpro_xml_error_handler)(void *context, const char *message, int severity, void *locator);

struct intervalpro_xml {
    void *(*reader_for_memory)(const char *buffer, int size, const char *url, const char *encoding, int options);
    int (*read)(void *reader);
    int (*node_type)(void *reader);
    const unsigned char *(*const_local_name)(void *reader);
    const unsigned char *(*const_value)(void *reader);
    int (*is_empty_element)(void *reader);
    int (*move_to_next_attribute)(void *reader);
    int (*move_to_element)(void *reader);
    int (*is_namespace_declaration)(void *reader);
    void *(*current_node)(void *reader);
    long (*node_line)(const void *node);
    void (*set_error_handler)(void *reader, intervalpro_xml_error_handler handler, void *context);
    int (*locator_line)(void *locator);
    void (*free_reader)(void *reader);
    // xmlTextReaderGetParserLineNumber: where the parser is in the input; may be NULL.
    int (*parser_line)(void *reader);
    // xmlSetGenericErrorFunc: per thread, so set before each read; may be NULL.
    void (*set_generic_error)(void *context, void (*handler)(void *context, const char *message, ...));
};

// libxml2 reports some errors (an encoding's input that does not convert) through its
// generic handler, which writes to stderr; the reader's handler reports what matters.
// (A C variadic function: Swift cannot define one.)
static inline void intervalpro_xml_ignore(void *context, const char *message, ...) {
    (void)context;
    (void)message;
}

// Silences libxml2's generic handler on the calling thread.
static inline void intervalpro_xml_quiet(const struct intervalpro_xml *api) {
    if (api->set_generic_error) api->set_generic_error(NULL, intervalpro_xml_ignore);
}

// Opens libxml2 and fills `api`; 0 when every function was found.
static inline int intervalpro_xml_open(struct intervalpro_xml *api) {
    void *handle = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) return -1;
#define INTERVALPRO_XML_FIND(field, symbol) *(void **)(&api->field) = dlsym(handle, symbol)
    INTERVALPRO_XML_FIND(reader_for_memory, "xmlReaderForMemory");
    INTERVALPRO_XML_FIND(read, "xmlTextReaderRead");
    INTERVALPRO_XML_FIND(node_type, "xmlTextReaderNodeType");
    INTERVALPRO_XML_FIND(const_local_name, "xmlTextReaderConstLocalName");
    INTERVALPRO_XML_FIND(const_value, "xmlTextReaderConstValue");
    INTERVALPRO_XML_FIND(is_empty_element, "xmlTextReaderIsEmptyElement");
    INTERVALPRO_XML_FIND(move_to_next_attribute, "xmlTextReaderMoveToNextAttribute");
    INTERVALPRO_XML_FIND(move_to_element, "xmlTextReaderMoveToElement");
    INTERVALPRO_XML_FIND(is_namespace_declaration, "xmlTextReaderIsNamespaceDecl");
    INTERVALPRO_XML_FIND(current_node, "xmlTextReaderCurrentNode");
    INTERVALPRO_XML_FIND(node_line, "xmlGetLineNo");
    INTERVALPRO_XML_FIND(set_error_handler, "xmlTextReaderSetErrorHandler");
    INTERVALPRO_XML_FIND(locator_line, "xmlTextReaderLocatorLineNumber");
    INTERVALPRO_XML_FIND(free_reader, "xmlFreeTextReader");
    if (!(api->reader_for_memory && api->read && api->node_type && api->const_local_name && api->const_value &&
          api->is_empty_element && api->move_to_next_attribute && api->move_to_element &&
          api->is_namespace_declaration && api->current_node && api->node_line && api->set_error_handler &&
          api->locator_line && api->free_reader)) {
        dlclose(handle);
        return -1;
    }
    INTERVALPRO_XML_FIND(set_generic_error, "xmlSetGenericErrorFunc");
    INTERVALPRO_XML_FIND(parser_line, "xmlTextReaderGetParserLineNumber");
#undef INTERVALPRO_XML_FIND
    return 0;
}
