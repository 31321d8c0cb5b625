import { Badge, createTheme, Modal, Notification, type CSSVariablesResolver } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'indigo',
  // White on indigo.6 is 4.3:1, under WCAG's 4.5:1 for button labels; indigo.7 passes.
  primaryShade: 7,
  defaultRadius: 'md',
  components: {
    // The close button is an icon: screen readers need its name.
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
    Notification: Notification.extend({
      defaultProps: { closeButtonProps: { 'aria-label': 'Close notification' } },
    }),
    // Coloured text on a tinted badge is under 4.5:1 for green, orange and yellow at badge size;
    // the tint and border carry the colour and the text stays black.
    Badge: Badge.extend({
      vars: (_theme, props) =>
        props.variant === 'light' || props.variant === 'outline'
          ? { root: { '--badge-color': 'var(--mantine-color-black)' } }
          : { root: {} },
    }),
  },
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
});

/**
 * Mantine's dimmed grey is below the 4.5:1 contrast WCAG asks for small text; a darker one is not.
 * Its error red (red.6, 3.3:1) also colours the text typed into an invalid input: red.9 is 5.4:1.
 */
export const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  light: { '--mantine-color-dimmed': t.colors.gray[7], '--mantine-color-error': t.colors.red[9] },
  dark: {},
});
