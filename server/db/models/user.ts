import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Sequelize,
} from 'sequelize';

import type { UserRole } from '../../../contract/console/users';

export class User extends Model<InferAttributes<User>, InferCreationAttributes<User>> {
  declare id: CreationOptional<number>;
  declare username: string;
  /** Empty while an invited account has not set its password: no password matches it. */
  declare passwordHash: string;
  declare role: UserRole;
  declare disabled: CreationOptional<boolean>;
  /** SHA-256 of the one-time invite link's token, until the person sets a password. */
  declare inviteHash: CreationOptional<string | null>;
  declare inviteExpiresAt: CreationOptional<Date | null>;
  /** The TOTP secret (base32), sealed with the secret box; null while two-factor is off. */
  declare totpSecret: CreationOptional<string | null>;
  /** A secret being set up, sealed, until the person confirms it with a code. */
  declare totpPending: CreationOptional<string | null>;
  /** The last time step a code was accepted at: no step is accepted twice. */
  declare totpLastStep: CreationOptional<number | null>;
  /** JSON array of the SHA-256 of each unused recovery code. */
  declare recoveryCodes: CreationOptional<string | null>;
  /**
   * The OpenID Connect identity the account is bound to (issuer + subject, unique together);
   * null for an account that has never signed in with the provider.
   */
  declare ssoIssuer: CreationOptional<string | null>;
  declare ssoSubject: CreationOptional<string | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize): void {
    User.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        username: { type: DataTypes.STRING(100), allowNull: false, unique: true },
        passwordHash: { type: DataTypes.STRING(255), allowNull: false },
        role: { type: DataTypes.STRING(16), allowNull: false },
        disabled: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        inviteHash: { type: DataTypes.STRING(64), allowNull: true, defaultValue: null },
        inviteExpiresAt: { type: DataTypes.DATE, allowNull: true, defaultValue: null },
        totpSecret: { type: DataTypes.STRING(255), allowNull: true, defaultValue: null },
        totpPending: { type: DataTypes.STRING(255), allowNull: true, defaultValue: null },
        totpLastStep: { type: DataTypes.INTEGER, allowNull: true, defaultValue: null },
        recoveryCodes: { type: DataTypes.TEXT, allowNull: true, defaultValue: null },
        ssoIssuer: { type: DataTypes.STRING(500), allowNull: true, defaultValue: null },
        ssoSubject: { type: DataTypes.STRING(255), allowNull: true, defaultValue: null },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'users' },
    );
  }
}
